import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type * as k8s from '@kubernetes/client-node';
import {
  Commands,
  EventTypes,
  FENCING_LABEL,
  FENCING_LABEL_ENABLED,
  FencingFailureReason,
  FencingStatus,
  type FencingView,
  type InstanceFenceReply,
  type InstancesDescribeReply,
} from '@nodes-manager/contracts';
import {
  CLOCK,
  CodedError,
  CycleRunner,
  COMMAND_BUS,
  DATA_SOURCE,
  HEALTH_REGISTRY,
  LOGGER,
  makeEvent,
  METRICS,
  newMeta,
  OUTBOX,
  type Clock,
  type CommandBus,
  type HealthRegistry,
  type JsonLogger,
  type LeaderElector,
  type Metrics,
  type Outbox,
  type SqlRunner,
} from '@nodes-manager/platform';
import type { UncordonConfig } from './config.js';
import { conditionOf, parseProviderId, zoneOf as nodeZoneOf } from '@nodes-manager/kube';
import { decideEc2Step, decideFencing, type Ec2Observation, type FenceCandidate } from './domain/fencing/decide-fencing.js';
import { fencingView, type FencingRepository, type FencingRow } from './adapters/outbound/fencing.repository.js';
import type { KubeFencing, LeaseReading } from './adapters/outbound/kube-fencing.adapter.js';
import type { KubeNodes } from './adapters/outbound/kube-nodes.adapter.js';
import type { NodeSource } from './adapters/outbound/node-source.adapter.js';
import type { UncordonRepository } from './adapters/outbound/uncordon.repository.js';
import { FENCING_REPOSITORY, KUBE_FENCING, KUBE_NODES, NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER, UNCORDON_REPOSITORY } from './tokens.js';

export const FENCING_ACTOR = 'system:uncordon';
/** Scaling-event action of every fencing record. */
export const FENCE_ACTION = 'fence';
/** How often EC2 is asked again (a retry of a failed call, or DescribeInstances while waiting for the state). */
const POLL_MS = 2_000;
/** Leases are read for at most this many dead-looking nodes at once. */
const LEASE_READS_AT_ONCE = 8;

const readyOf = (n: k8s.V1Node): { status: 'True' | 'False' | 'Unknown'; since: Date | null } => {
  const c = conditionOf(n, 'Ready');
  return { status: c?.status ?? 'Unknown', since: c?.lastTransitionTime ? new Date(c.lastTransitionTime) : null };
};
const optedIn = (n: k8s.V1Node): boolean => n.metadata?.labels?.[FENCING_LABEL] === FENCING_LABEL_ENABLED;
const zoneOf = (n: k8s.V1Node): string | null => nodeZoneOf(n.metadata?.labels ?? {}) ?? null;

/**
 * FencingService — fences hung nodes that opted in, through EC2 (docs/fencing.md). The leader reads the node cache,
 * reads the Lease of each opted-in node that is not Ready (no Lease watch: 5,000 leases renewed every 10 s would be
 * 500 events a second), asks the pure {@link decideFencing}, records every verdict, and runs each fence as recorded
 * steps: intent → Lease read once more → StopInstances(Force)/TerminateInstances through spot-advisor →
 * DescribeInstances until stopped/terminated → out-of-service taint → force deletion of the pods still bound →
 * `node.fenced`. A partial unique index keeps one fence per node object, ever; guarded transitions keep a replica
 * that lost leadership from moving an operation on; a new leader resumes active operations from their last step.
 */
@Injectable()
export class FencingService {
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;
  private readonly pickUps = new CycleRunner<void>(() => this.pickUp());
  private readonly fences;
  private readonly suspendedGauge;
  private suspendedDetail?: string;
  /** What the last cycle wrote to fencing_verdicts/fencing_state, so an unchanged evaluation writes nothing. */
  private savedKey?: string;

  constructor(
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(NODE_SOURCE) private readonly source: NodeSource,
    @Inject(KUBE_FENCING) private readonly kube: KubeFencing,
    @Inject(KUBE_NODES) private readonly nodes: KubeNodes,
    @Inject(FENCING_REPOSITORY) private readonly repo: FencingRepository,
    @Inject(UNCORDON_REPOSITORY) private readonly events: UncordonRepository,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(METRICS) metrics: Metrics,
    @Inject(HEALTH_REGISTRY) health: HealthRegistry,
  ) {
    this.fences = metrics.counter('nodes_manager_fencing_operations_total', 'Fencing operations by final status', ['status', 'reason']);
    this.suspendedGauge = metrics.gauge('nodes_manager_fencing_suspended', '1 while a suspected partition holds fencing back');
    health.register('uncordon.fencing', () =>
      this.suspendedDetail ? { ok: false, degraded: true, detail: this.suspendedDetail } : { ok: true, detail: config.FENCING_ENABLED ? 'fencing armed' : 'fencing switched off' },
    );
  }

  /** runCycle — one evaluation by the leader (nothing elsewhere); answers when a waiting verdict changes by itself. */
  async runCycle(): Promise<{ requeueAfterMs?: number }> {
    if (this.stopping || !this.leader.isLeader || !this.source.synced) return {};
    const all = this.source.list();
    const relevant = all.filter((n) => optedIn(n) || readyOf(n).status !== 'True');
    const now = this.clock.now();
    const dead = relevant.filter((n) => optedIn(n) && readyOf(n).status !== 'True');
    const leases = await this.readLeases(dead);
    const fenced = await this.repo.fencedUids(dead.map((n) => n.metadata?.uid ?? ''));
    const candidates: FenceCandidate[] = [];
    for (const n of relevant) {
      const name = n.metadata?.name ?? '';
      const ready = readyOf(n);
      const lease = leases.get(name);
      // A Lease that could not be read this cycle: no verdict on a guess; the node is looked at again next cycle.
      if (optedIn(n) && ready.status !== 'True' && lease === 'error') continue;
      candidates.push({
        name,
        uid: n.metadata?.uid ?? '',
        zone: zoneOf(n),
        optedIn: optedIn(n),
        instanceId: parseProviderId(n.spec?.providerID)?.instanceId ?? null,
        ready: ready.status,
        notReadySince: ready.status === 'True' ? null : ready.since,
        ...(lease !== undefined && lease !== 'error' ? { lease } : {}),
        alreadyFenced: fenced.has(n.metadata?.uid ?? ''),
      });
    }
    const decision = decideFencing(candidates, now, {
      enabled: this.config.FENCING_ENABLED,
      leaseTimeoutSeconds: this.config.FENCING_LEASE_TIMEOUT_SECONDS,
      maxUnhealthyPercent: this.config.FENCING_MAX_UNHEALTHY_PERCENT,
    });
    // Verdicts are written when they change (decision and reason per node, the shares), not every cycle.
    const key = JSON.stringify([decision.verdicts.map((v) => [v.node, v.decision, v.reason]), decision.overall, decision.zones]);
    const before = await this.repo.state();
    if (key !== this.savedKey) await this.ds.transaction(async (tx) => {
      await this.repo.saveVerdicts(tx, decision.verdicts, decision, now);
      if ((before?.suspended ?? false) !== decision.suspended) {
        await this.outbox.add(tx, [
          makeEvent(
            'uncordon',
            EventTypes.fencingSuspended,
            {
              suspended: decision.suspended,
              overall: { dead: decision.overall.dead, total: decision.overall.total, percent: decision.overall.percent, suspended: decision.overall.suspended },
              zones: decision.zones.map((z) => ({ zone: z.zone ?? 'unknown', dead: z.dead, total: z.total, percent: z.percent, suspended: z.suspended })),
              maxUnhealthyPercent: this.config.FENCING_MAX_UNHEALTHY_PERCENT,
            },
            now,
            { actor: FENCING_ACTOR, subject: 'cluster' },
          ),
        ]);
      }
    });
    this.savedKey = key;
    this.outbox.added();
    this.suspendedGauge.set({ service: 'uncordon' }, decision.suspended ? 1 : 0);
    const where = decision.overall.suspended ? decision.overall : decision.zones.find((z) => z.suspended);
    this.suspendedDetail = where
      ? `fencing suspended: ${where.dead} of ${where.total} opted-in nodes${where.zone ? ` in ${where.zone}` : ''} look dead (suspected partition)`
      : undefined;
    if (decision.suspended !== (before?.suspended ?? false)) this.logger.warn(decision.suspended ? 'fencing suspended: suspected partition' : 'fencing resumed', { overall: decision.overall });
    for (const c of decision.fence) await this.start(c, decision.verdicts.find((v) => v.node === c.name)!, now);
    this.kick();
    return decision.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : {};
  }

  /** view — `GET /api/v1/fencing`: settings, partition shares, verdicts and the latest operations. */
  async view(limit = 100, node?: string): Promise<FencingView> {
    const [state, allVerdicts, recent] = await Promise.all([this.repo.state(), this.repo.verdicts(), this.repo.recent(node ? 500 : limit)]);
    const verdicts = node ? allVerdicts.filter((v) => v.node === node) : allVerdicts;
    const ops = node ? recent.filter((o) => o.node === node).slice(0, limit) : recent;
    const none = { dead: 0, total: 0, percent: 0, suspended: false };
    return {
      enabled: this.config.FENCING_ENABLED,
      dryRun: this.config.FENCING_DRY_RUN,
      action: this.config.FENCING_ACTION,
      leaseTimeoutSeconds: this.config.FENCING_LEASE_TIMEOUT_SECONDS,
      maxUnhealthyPercent: this.config.FENCING_MAX_UNHEALTHY_PERCENT,
      suspended: state?.suspended ?? false,
      overall: state?.overall ?? none,
      zones: state?.zones ?? [],
      verdicts,
      operations: ops.map(fencingView),
      evaluatedAt: state?.evaluatedAt.toISOString() ?? null,
    };
  }

  /** kick — the leader runs every active operation it is not running yet (a restart or failover resumes them). */
  kick(): void {
    if (this.stopping || !this.leader.isLeader) return;
    void this.pickUps.request();
  }

  /** pickUp — one pick-up; they never overlap, and a kick during one runs one more (docs/design.md#cycles). */
  private async pickUp(): Promise<void> {
    if (this.stopping || !this.leader.isLeader) return;
    await this.repo
      .active()
      .then((ops) => {
        for (const op of ops) {
          if (this.running.has(op.id)) continue;
          const run = this.run(op)
            .catch((err) => this.logger.error('fencing run crashed', { node: op.node, operationId: op.id, err: (err as Error).message }))
            .finally(() => this.running.delete(op.id));
          this.running.set(op.id, run);
        }
      })
      .catch((err) => this.logger.warn('fencing pick-up failed', { err: (err as Error).message }));
  }

  /** settled — resolves once every fence this process runs has ended or paused; for tests and shutdown. */
  async settled(): Promise<void> {
    await this.pickUps.idle();
    await Promise.allSettled([...this.running.values()]);
  }

  /** stop — no new steps; operations stay at their last recorded step for the next leader. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.settled();
  }

  private async readLeases(nodes: readonly k8s.V1Node[]): Promise<Map<string, LeaseReading | null | 'error'>> {
    const out = new Map<string, LeaseReading | null | 'error'>();
    for (let i = 0; i < nodes.length; i += LEASE_READS_AT_ONCE) {
      await Promise.all(
        nodes.slice(i, i + LEASE_READS_AT_ONCE).map(async (n) => {
          const name = n.metadata?.name ?? '';
          try {
            out.set(name, await this.kube.lease(name));
          } catch (err) {
            this.logger.warn('node lease not read', { node: name, err: (err as Error).message });
            out.set(name, 'error');
          }
        }),
      );
    }
    return out;
  }

  /** start — records the intent (or, in dry run, the fence that would have run) once per node object. */
  private async start(c: FenceCandidate, verdict: unknown, now: Date): Promise<void> {
    const dryRun = this.config.FENCING_DRY_RUN;
    if (dryRun && (await this.repo.dryRunUids([c.uid])).has(c.uid)) return;
    const id = randomUUID();
    const at = now.toISOString();
    const inserted = await this.ds.transaction(async (tx) => {
      const ok = await this.repo.insert(tx, {
        id,
        node: c.name,
        nodeUid: c.uid,
        instanceId: c.instanceId!,
        zone: c.zone,
        action: this.config.FENCING_ACTION,
        dryRun,
        status: dryRun ? FencingStatus.COMPLETED : FencingStatus.PENDING,
        actor: FENCING_ACTOR,
        steps: [{ status: dryRun ? FencingStatus.COMPLETED : FencingStatus.PENDING, at, detail: dryRun ? 'dry run: nothing was done' : 'intent recorded' }],
        evidence: { verdict, leaseRenewedAt: c.lease?.renewTime?.toISOString() ?? null },
        startedAt: now,
      });
      if (ok && dryRun) await this.record(tx, { id, node: c.name, dryRun: true }, 'DRY_RUN', 'completed', { verdict }, now);
      return ok;
    });
    if (!inserted) return;
    this.logger.info(dryRun ? 'fence (dry run)' : 'fence intended', { node: c.name, operationId: id, instanceId: c.instanceId, action: this.config.FENCING_ACTION });
  }

  private shouldStop(): boolean {
    return this.stopping || !this.leader.isLeader;
  }

  /** pause — waits `ms` in slices, ending early when this process should stop. */
  private async pause(ms: number): Promise<void> {
    for (let waited = 0; waited < ms && !this.shouldStop(); waited += 250) {
      await new Promise((r) => setTimeout(r, Math.min(250, ms - waited)).unref());
    }
  }

  /** run — carries one operation on from its recorded step. */
  private async run(op: FencingRow): Promise<void> {
    let status = op.status;
    const stepAt = (s: string): number => new Date(op.steps.find((x) => x.status === s)?.at ?? op.startedAt).getTime();

    if (status === FencingStatus.PENDING) {
      const node = await this.kube.node(op.node).catch(() => 'error' as const);
      if (node === 'error') return; // next pick-up
      if (!node || node.metadata?.uid !== op.nodeUid) return this.end(op, status, FencingStatus.ABANDONED, FencingFailureReason.NODE_GONE, 'the node went away before anything was done');
      const lease = await this.kube.lease(op.node).catch(() => 'error' as const);
      if (lease === 'error') return;
      const deadline = lease?.renewTime ? lease.renewTime.getTime() + (lease.durationSeconds + this.config.FENCING_LEASE_TIMEOUT_SECONDS) * 1000 : 0;
      if (deadline > this.clock.now().getTime() || readyOf(node).status === 'True') {
        return this.end(op, status, FencingStatus.ABANDONED, FencingFailureReason.LEASE_RENEWED, 'the node renewed its Lease (or is Ready) again before the EC2 call: left alone');
      }
      if (!(await this.leader.stillLeader())) return;
      if (!(await this.step(op, status, FencingStatus.EC2_REQUESTED, `${this.config.FENCING_ACTION === 'stop' ? 'StopInstances (Force)' : 'TerminateInstances'} ${op.instanceId}`))) return;
      status = FencingStatus.EC2_REQUESTED;
      op.steps.push({ status, at: this.clock.now().toISOString() });
    }

    if (status === FencingStatus.EC2_REQUESTED) {
      const deadline = new Date(stepAt(FencingStatus.EC2_REQUESTED) + this.config.FENCING_CONFIRM_TIMEOUT_SECONDS * 1000);
      let asked = false;
      let state: string | null = null;
      for (;;) {
        if (this.shouldStop()) return;
        let seen: Ec2Observation;
        try {
          if (!asked) {
            const r = await this.bus.send<InstanceFenceReply>('spot-advisor', Commands.instanceFence, { instanceId: op.instanceId, action: op.action, force: true }, newMeta(FENCING_ACTOR, op.id));
            asked = true;
            seen = { state: r.currentState };
          } else {
            const r = await this.bus.send<InstancesDescribeReply>('spot-advisor', Commands.instancesDescribe, { instanceIds: [op.instanceId] }, newMeta(FENCING_ACTOR, op.id));
            // An id EC2 no longer knows is an instance terminated long ago.
            seen = { state: r.instances.find((i) => i.instanceId === op.instanceId)?.state ?? (r.missing.includes(op.instanceId) ? 'terminated' : (state ?? 'unknown')) };
          }
        } catch (err) {
          const coded = CodedError.from(err);
          seen = { errorCode: coded.code, message: coded.message };
          this.logger.warn('fencing EC2 call failed', { node: op.node, operationId: op.id, code: coded.code, err: coded.message });
        }
        if ('state' in seen) state = seen.state;
        const d = decideEc2Step(seen, state, this.clock.now(), deadline, op.instanceId);
        if (d.next === 'failed') return this.end(op, status, FencingStatus.FAILED, d.reason, d.message, state);
        if (d.next === 'confirmed') {
          state = d.state;
          break;
        }
        await this.pause(POLL_MS);
      }
      if (this.shouldStop()) return;
      if (!(await this.step(op, status, FencingStatus.CONFIRMED, `EC2 reports ${op.instanceId} ${state}`, { instanceState: state }))) return;
      status = FencingStatus.CONFIRMED;
      op.steps.push({ status, at: this.clock.now().toISOString() });
      op.instanceState = state;
    }

    if (status === FencingStatus.CONFIRMED) {
      const deadline = stepAt(FencingStatus.CONFIRMED) + this.config.FENCING_CONFIRM_TIMEOUT_SECONDS * 1000;
      for (;;) {
        if (this.shouldStop()) return;
        if (this.clock.now().getTime() >= deadline) {
          return this.end(op, status, FencingStatus.FAILED, FencingFailureReason.TAINT_FAILED, `the out-of-service taint could not be set on ${op.node}`);
        }
        const r = await this.kube.taintOutOfService(op.node, op.nodeUid).catch((err: Error) => ({ ok: false as const, notFound: false, conflict: false, message: err.message }));
        if (r.ok) break;
        if (r.notFound) {
          // The node object is gone with its instance: the control plane removes its pods; nothing is left to taint.
          return this.complete(op, status, 0, 'the node object was deleted after its instance stopped; no taint needed');
        }
        this.logger.warn('out-of-service taint not set; retrying', { node: op.node, operationId: op.id, conflict: r.conflict, err: r.message });
        await this.pause(POLL_MS);
      }
      if (!(await this.step(op, status, FencingStatus.TAINTED, `${op.node} tainted node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`))) return;
      status = FencingStatus.TAINTED;
      op.steps.push({ status, at: this.clock.now().toISOString() });
    }

    if (status === FencingStatus.TAINTED) {
      const wait = stepAt(FencingStatus.TAINTED) + this.config.FENCING_POD_DELETE_WAIT_SECONDS * 1000 - this.clock.now().getTime();
      if (wait > 0) await this.pause(wait);
      if (this.shouldStop()) return;
      let deleted = 0;
      for (;;) {
        try {
          for (const p of await this.kube.podsOnNode(op.node)) {
            if ((await this.kube.forceDelete(p.metadata?.namespace ?? 'default', p.metadata?.name ?? '')) === 'deleted') deleted++;
          }
          break;
        } catch (err) {
          this.logger.warn('pods of a fenced node not deleted yet; retrying', { node: op.node, operationId: op.id, err: (err as Error).message });
          await this.pause(POLL_MS);
          if (this.shouldStop()) return;
        }
      }
      await this.complete(op, status, deleted, `${op.node} fenced: instance ${op.instanceId} ${op.instanceState ?? 'stopped'}, tainted out-of-service, ${deleted} pod(s) deleted`);
    }
  }

  /** step — a guarded transition; false when another process moved the operation on (then this one stops). */
  private async step(op: FencingRow, from: FencingStatus, to: FencingStatus, detail: string, set: { instanceState?: string } = {}): Promise<boolean> {
    const now = this.clock.now();
    const ok = await this.ds.transaction((tx) => this.repo.transition(tx, op.id, from, to, { status: to, at: now.toISOString(), detail }, now, set));
    if (!ok) this.logger.info('fencing operation moved on elsewhere; left to it', { node: op.node, operationId: op.id });
    else this.logger.info(`fencing ${to}`, { node: op.node, operationId: op.id, detail });
    return ok;
  }

  private async complete(op: FencingRow, from: FencingStatus, podsDeleted: number, message: string): Promise<void> {
    const now = this.clock.now();
    const done = await this.ds.transaction(async (tx) => {
      if (!(await this.repo.transition(tx, op.id, from, FencingStatus.COMPLETED, { status: FencingStatus.COMPLETED, at: now.toISOString(), detail: message }, now, { podsDeleted, message, finished: true }))) return false;
      await this.record(tx, { id: op.id, node: op.node, dryRun: false }, 'FENCED', FencingStatus.COMPLETED, { instanceId: op.instanceId, action: op.action, instanceState: op.instanceState, podsDeleted, message }, now);
      await this.outbox.add(tx, [
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
          { actor: FENCING_ACTOR, subject: op.node, correlationId: op.id },
        ),
      ]);
      return true;
    });
    if (!done) return;
    this.outbox.added();
    this.fences.inc({ service: 'uncordon', status: FencingStatus.COMPLETED, reason: 'FENCED' });
    this.logger.info('node fenced', { node: op.node, operationId: op.id, instanceId: op.instanceId, podsDeleted });
    await this.kubeEvent(op, 'NodeFenced', message, 'Warning');
  }

  /** end — failed or abandoned, with its scaling event; nothing else in the cluster changes. */
  private async end(op: FencingRow, from: FencingStatus, to: typeof FencingStatus.FAILED | typeof FencingStatus.ABANDONED, reason: string, message: string, instanceState: string | null = null): Promise<void> {
    const now = this.clock.now();
    const ended = await this.ds.transaction(async (tx) => {
      if (!(await this.repo.transition(tx, op.id, from, to, { status: to, at: now.toISOString(), detail: message }, now, { reason, message, instanceState, finished: true }))) return false;
      await this.record(tx, { id: op.id, node: op.node, dryRun: false }, reason, to, { instanceId: op.instanceId, action: op.action, message }, now);
      return true;
    });
    if (!ended) return;
    this.fences.inc({ service: 'uncordon', status: to, reason });
    this.logger.warn(`fencing ${to}`, { node: op.node, operationId: op.id, reason, message });
    if (to === FencingStatus.FAILED) await this.kubeEvent(op, 'FencingFailed', message, 'Warning');
  }

  private async record(tx: SqlRunner, op: { id: string; node: string; dryRun: boolean }, reason: string, decision: string, evidence: Record<string, unknown>, now: Date): Promise<void> {
    await this.events.addEvent(tx, { nodeName: op.node, action: FENCE_ACTION, decision, reason, actor: FENCING_ACTOR, operationId: op.id, dryRun: op.dryRun, evidence, createdAt: now });
  }

  private async kubeEvent(op: FencingRow, reason: string, message: string, type: 'Normal' | 'Warning'): Promise<void> {
    await this.nodes
      .nodeEvent({ metadata: { name: op.node, uid: op.nodeUid } }, reason, message, this.clock.now(), type)
      .catch((err) => this.logger.debug('fencing Kubernetes Event not written', { node: op.node, err: (err as Error).message }));
  }
}
