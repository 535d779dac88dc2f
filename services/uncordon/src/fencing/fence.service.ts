import { Inject, Injectable } from '@nestjs/common';
import { Commands, EventTypes, FencingFailureReason, FencingStatus } from '@nodes-manager/contracts';
import {
  PAUSE_GATE,
  type PauseGate,
  CLOCK,
  CodedError,
  COMMAND_BUS,
  LOGGER,
  makeEvent,
  METRICS,
  newMeta,
  type Clock,
  type CommandBus,
  type JsonLogger,
  type LeaderElector,
  type Metrics,
  type ReconcileResult,
} from '@nodes-manager/platform';
import { isNodeReady } from '@nodes-manager/kube';
import type { UncordonConfig } from '../config.js';
import { decideEc2Step, type Ec2Observation } from './domain/decide-fencing.js';
import type { FencingRecord, FencingRepository, FencingRow, FencingSet } from './fencing.repository.js';
import type { KubeFencing } from '../adapters/outbound/kube-fencing.adapter.js';
import type { KubeNodes } from '../adapters/outbound/kube-nodes.adapter.js';
import { FENCING_REPOSITORY, KUBE_FENCING, KUBE_NODES, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';

export const FENCING_ACTOR = 'system:uncordon';
/** Scaling-event action of every fencing record. */
export const FENCE_ACTION = 'fence';
/** How often EC2 is asked again (a retry of a failed call, or DescribeInstances while waiting for the state). */
export const POLL_MS = 2_000;

/** recordOf — a fencing step's scaling event (action `fence`, as the operation's actor) and the events that go with it. */
export function fencingRecordOf(
  op: { id: string; node: string; dryRun: boolean; actor: string },
  reason: string,
  decision: string,
  evidence: Record<string, unknown>,
  now: Date,
  events: FencingRecord['events'] = [],
): FencingRecord {
  return { row: { nodeName: op.node, action: FENCE_ACTION, decision, reason, actor: op.actor, operationId: op.id, dryRun: op.dryRun, evidence, createdAt: now }, events };
}

/**
 * FenceService — one fence's recorded steps (docs/fencing.md#the-sequence-each-step-recorded-before-the-next), one
 * step per reconcile of the fences controller (its key: the operation's id), each going on from the row's status:
 *
 * - `pending`: the node and its Lease read once more (gone → `abandoned` NODE_GONE; renewed or Ready →
 *   `abandoned` LEASE_RENEWED), then `ec2_requested` is recorded;
 * - `ec2_requested`: StopInstances(Force)/TerminateInstances through spot-advisor — once its answer is on the row
 *   (`instance_state`), DescribeInstances — every 2 s until stopped/terminated (`confirmed`), refused (`failed`
 *   EC2_REFUSED) or past FENCING_CONFIRM_TIMEOUT_SECONDS (`failed` EC2_NOT_CONFIRMED);
 * - `confirmed`: the out-of-service taint on a fresh read, guarded by its resourceVersion (`tainted`), retried every
 *   2 s until the same timeout;
 * - `tainted`: FENCING_POD_DELETE_WAIT_SECONDS after the taint, the pods still bound are deleted → `completed`.
 *
 * Guarded transitions keep a replica that lost leadership from moving an operation on; a new leader goes on from the
 * last recorded step. Nothing of a fence lives in memory between steps.
 */
@Injectable()
export class FenceService {
  private readonly fences;

  constructor(
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(KUBE_FENCING) private readonly kube: KubeFencing,
    @Inject(KUBE_NODES) private readonly nodes: KubeNodes,
    @Inject(FENCING_REPOSITORY) private readonly repo: FencingRepository,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(METRICS) metrics: Metrics,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {
    this.fences = metrics.counter('nodes_manager_fencing_operations_total', 'Fencing operations by final status', ['status', 'reason']);
  }

  /** activeIds — the fences still to be carried on: the fences controller's keys. */
  async activeIds(): Promise<string[]> {
    return (await this.repo.active()).map((op) => op.id);
  }

  /**
   * step — one step of the fence `id` from its recorded status; answers when to look again (at once after a
   * transition, after the poll, or when the pod-delete wait ends). An API read that fails throws: retried with
   * back-off. An operation that ended, or that another process moved on, is left alone.
   */
  async step(id: string, ctx: { readonly signal: AbortSignal }): Promise<ReconcileResult> {
    const op = await this.repo.get(id);
    if (!op || ctx.signal.aborted) return {};
    const stepAt = (s: string): number => new Date(op.steps.find((x) => x.status === s)?.at ?? op.startedAt).getTime();
    switch (op.status) {
      case FencingStatus.PENDING:
        return this.recheck(op);
      case FencingStatus.EC2_REQUESTED:
        return this.askEc2(op, new Date(stepAt(FencingStatus.EC2_REQUESTED) + this.config.FENCING_CONFIRM_TIMEOUT_SECONDS * 1000));
      case FencingStatus.CONFIRMED:
        return this.taint(op, stepAt(FencingStatus.CONFIRMED) + this.config.FENCING_CONFIRM_TIMEOUT_SECONDS * 1000);
      case FencingStatus.TAINTED:
        return this.deletePods(op, stepAt(FencingStatus.TAINTED) + this.config.FENCING_POD_DELETE_WAIT_SECONDS * 1000);
      default:
        return {};
    }
  }

  /** recheck — `pending`: the node and its Lease once more, then the EC2 request is recorded. */
  private async recheck(op: FencingRow): Promise<ReconcileResult> {
    const node = await this.kube.node(op.node);
    if (!node || node.metadata?.uid !== op.nodeUid) {
      await this.end(op, FencingStatus.ABANDONED, FencingFailureReason.NODE_GONE, 'the node went away before anything was done');
      return {};
    }
    const lease = await this.kube.lease(op.node);
    const deadline = lease?.renewTime ? lease.renewTime.getTime() + (lease.durationSeconds + this.config.FENCING_LEASE_TIMEOUT_SECONDS) * 1000 : 0;
    if (deadline > this.clock.now().getTime() || isNodeReady(node)) {
      await this.end(op, FencingStatus.ABANDONED, FencingFailureReason.LEASE_RENEWED, 'the node renewed its Lease (or is Ready) again before the EC2 call: left alone');
      return {};
    }
    // The fence's first disruptive step: past here the instance is stopped. A pause holds it here, before the EC2
    // call (its intent stays `pending`); once the call is made the fence finishes (docs/pause.md).
    // A recorded fence is under way: its start (and approval, under `manual`) was admitted when its intent was
    // recorded, and a window governs starting only — so here the pause alone can hold it.
    const admitted = await this.pause.admit('fence', { policy: this.config.DISRUPTION_APPROVAL, windows: this.config.DISRUPTION_WINDOWS, nodePool: undefined, now: this.clock.now(), running: true });
    if (!admitted.admit) {
      this.logger.info('fence waits before its EC2 call: disruptive actions paused', { node: op.node, reason: admitted.detail });
      return { requeueAfterMs: this.config.SCAN_INTERVAL_SECONDS * 1000 };
    }
    if (!(await this.leader.stillLeader())) return {};
    const moved = await this.transition(op, FencingStatus.EC2_REQUESTED, `${this.config.FENCING_ACTION === 'stop' ? 'StopInstances (Force)' : 'TerminateInstances'} ${op.instanceId}`);
    return moved ? { requeueAfterMs: 0 } : {};
  }

  /**
   * askEc2 — `ec2_requested`: the stop (or terminate) call until its answer is on the row, then DescribeInstances;
   * confirmed when EC2 reports the instance stopped or terminated (an id EC2 no longer knows is an instance
   * terminated long ago).
   */
  private async askEc2(op: FencingRow, deadline: Date): Promise<ReconcileResult> {
    let seen: Ec2Observation;
    let state = op.instanceState;
    try {
      if (state === null) {
        const r = await this.bus.send(Commands.instanceFence, { instanceId: op.instanceId, action: op.action, force: true }, newMeta(FENCING_ACTOR, op.id));
        seen = { state: r.currentState };
      } else {
        const r = await this.bus.send(Commands.instancesDescribe, { instanceIds: [op.instanceId] }, newMeta(FENCING_ACTOR, op.id));
        seen = { state: r.instances.find((i) => i.instanceId === op.instanceId)?.state ?? (r.missing.includes(op.instanceId) ? 'terminated' : state) };
      }
    } catch (err) {
      const coded = CodedError.from(err);
      seen = { errorCode: coded.code, message: coded.message };
      this.logger.warn('fencing EC2 call failed', { node: op.node, operationId: op.id, code: coded.code, err: coded.message });
    }
    if ('state' in seen) state = seen.state;
    const d = decideEc2Step(seen, state, this.clock.now(), deadline, op.instanceId);
    if (d.next === 'failed') {
      await this.end(op, FencingStatus.FAILED, d.reason, d.message, state);
      return {};
    }
    if (d.next === 'confirmed') {
      const moved = await this.transition(op, FencingStatus.CONFIRMED, `EC2 reports ${op.instanceId} ${d.state}`, { instanceState: d.state });
      return moved ? { requeueAfterMs: 0 } : {};
    }
    if (state !== null && state !== op.instanceState) await this.repo.observeInstance(op.id, FencingStatus.EC2_REQUESTED, state, this.clock.now());
    return { requeueAfterMs: POLL_MS };
  }

  /** taint — `confirmed`: the out-of-service taint on a fresh read of the node, retried until the confirm timeout. */
  private async taint(op: FencingRow, deadline: number): Promise<ReconcileResult> {
    if (this.clock.now().getTime() >= deadline) {
      await this.end(op, FencingStatus.FAILED, FencingFailureReason.TAINT_FAILED, `the out-of-service taint could not be set on ${op.node}`);
      return {};
    }
    const r = await this.kube.taintOutOfService(op.node, op.nodeUid, this.clock.now()).catch((err: Error) => ({ ok: false as const, notFound: false, conflict: false, message: err.message }));
    if (r.ok) {
      const moved = await this.transition(op, FencingStatus.TAINTED, `${op.node} tainted node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`);
      return moved ? { requeueAfterMs: this.config.FENCING_POD_DELETE_WAIT_SECONDS * 1000 } : {};
    }
    if (r.notFound) {
      // The node object is gone with its instance: the control plane removes its pods; nothing is left to taint.
      await this.complete(op, 0, 'the node object was deleted after its instance stopped; no taint needed');
      return {};
    }
    this.logger.warn('out-of-service taint not set; retrying', { node: op.node, operationId: op.id, conflict: r.conflict, err: r.message });
    return { requeueAfterMs: POLL_MS };
  }

  /** deletePods — `tainted`: once the pod-delete wait is over, the pods still bound are deleted with grace period 0. */
  private async deletePods(op: FencingRow, due: number): Promise<ReconcileResult> {
    const wait = due - this.clock.now().getTime();
    if (wait > 0) return { requeueAfterMs: wait };
    let deleted = 0;
    try {
      for (const p of await this.kube.podsOnNode(op.node)) {
        if ((await this.kube.forceDelete(p.metadata?.namespace ?? 'default', p.metadata?.name ?? '')) === 'deleted') deleted++;
      }
    } catch (err) {
      this.logger.warn('pods of a fenced node not deleted yet; retrying', { node: op.node, operationId: op.id, err: (err as Error).message });
      return { requeueAfterMs: POLL_MS };
    }
    await this.complete(op, deleted, `${op.node} fenced: instance ${op.instanceId} ${op.instanceState ?? 'stopped'}, tainted out-of-service, ${deleted} pod(s) deleted`);
    return {};
  }

  /** transition — a guarded step from the row's status; false when another process moved the operation on. */
  private async transition(op: FencingRow, to: FencingStatus, detail: string, set: FencingSet = {}): Promise<boolean> {
    const now = this.clock.now();
    const ok = await this.repo.step(op.id, op.status, to, { status: to, at: now.toISOString(), detail }, now, set);
    if (!ok) this.logger.info('fencing operation moved on elsewhere; left to it', { node: op.node, operationId: op.id });
    else this.logger.info(`fencing ${to}`, { node: op.node, operationId: op.id, detail });
    return ok;
  }

  private async complete(op: FencingRow, podsDeleted: number, message: string): Promise<void> {
    const now = this.clock.now();
    const record = fencingRecordOf(op, 'FENCED', FencingStatus.COMPLETED, { instanceId: op.instanceId, action: op.action, instanceState: op.instanceState, podsDeleted, message }, now, [
      makeEvent(
        'uncordon',
        EventTypes.nodeFenced,
        {
          operationId: op.id,
          node: op.node,
          nodeUid: op.nodeUid,
          instanceId: op.instanceId,
          zone: op.zone,
          action: op.action,
          instanceState: op.instanceState ?? 'stopped',
          leaseRenewedAt: (op.evidence['leaseRenewedAt'] as string | null | undefined) ?? null,
          podsDeleted,
          fencedAt: now.toISOString(),
        },
        now,
        { actor: op.actor, subject: op.node, correlationId: op.id },
      ),
    ]);
    const done = await this.repo.step(op.id, op.status, FencingStatus.COMPLETED, { status: FencingStatus.COMPLETED, at: now.toISOString(), detail: message }, now, { podsDeleted, message, finished: true }, record);
    if (!done) return;
    this.fences.inc({ service: 'uncordon', status: FencingStatus.COMPLETED, reason: 'FENCED' });
    this.logger.info('node fenced', { node: op.node, operationId: op.id, instanceId: op.instanceId, podsDeleted });
    await this.kubeEvent(op, 'NodeFenced', message, 'Warning');
  }

  /** end — failed or abandoned, with its scaling event; nothing else in the cluster changes. */
  private async end(op: FencingRow, to: typeof FencingStatus.FAILED | typeof FencingStatus.ABANDONED, reason: string, message: string, instanceState: string | null = null): Promise<void> {
    const now = this.clock.now();
    const record = fencingRecordOf(op, reason, to, { instanceId: op.instanceId, action: op.action, message }, now);
    const ended = await this.repo.step(op.id, op.status, to, { status: to, at: now.toISOString(), detail: message }, now, { reason, message, instanceState, finished: true }, record);
    if (!ended) return;
    this.fences.inc({ service: 'uncordon', status: to, reason });
    this.logger.warn(`fencing ${to}`, { node: op.node, operationId: op.id, reason, message });
    if (to === FencingStatus.FAILED) await this.kubeEvent(op, 'FencingFailed', message, 'Warning');
  }

  private async kubeEvent(op: FencingRow, reason: string, message: string, type: 'Normal' | 'Warning'): Promise<void> {
    await this.nodes
      .nodeEvent({ metadata: { name: op.node, uid: op.nodeUid } }, reason, message, this.clock.now(), type)
      .catch((err) => this.logger.debug('fencing Kubernetes Event not written', { node: op.node, err: (err as Error).message }));
  }
}
