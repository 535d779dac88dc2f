// This file is longer than 500 lines: the cycle, its approval gate and the approved fences it carries out share one
// start path (the intent, recorded with its approval) and the cycle's view of the nodes; the fence's recorded steps follow.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type * as k8s from '@kubernetes/client-node';
import {
  Commands,
  type ApprovalView,
  type CommandMeta,
  type FencingVerdict,
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
  approvalsPass,
  CLOCK,
  CodedError,
  CycleRunner,
  COMMAND_BUS,
  HEALTH_REGISTRY,
  LOGGER,
  makeEvent,
  METRICS,
  newMeta,
  type ApprovalStore,
  type Clock,
  type CommandBus,
  type HealthRegistry,
  type JsonLogger,
  type LeaderElector,
  type Metrics,
  type SqlRunner,
} from '@nodes-manager/platform';
import { approvalModeFor, windowState } from '@nodes-manager/disruption';
import type { UncordonConfig } from '../config.js';
import { isNodeReady, nodePoolOf, parseProviderId, readinessOf, zoneOf as nodeZoneOf } from '@nodes-manager/kube';
import { decideEc2Step, decideFencing, type Ec2Observation, type FenceCandidate, type FencingDecision } from './domain/decide-fencing.js';
import { gateFence, recheckApprovedFence, type FenceGate } from './domain/gate-fencing.js';
import { fencingView, type FencingRecord, type FencingRepository, type FencingRow, type FencingSet } from './fencing.repository.js';
import type { KubeFencing, LeaseReading } from '../adapters/outbound/kube-fencing.adapter.js';
import type { KubeNodes } from '../adapters/outbound/kube-nodes.adapter.js';
import type { NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { FENCE_APPROVALS, FENCING_REPOSITORY, KUBE_FENCING, KUBE_NODES, NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';

export const FENCING_ACTOR = 'system:uncordon';
/** Scaling-event action of every fencing record. */
export const FENCE_ACTION = 'fence';
/** How often EC2 is asked again (a retry of a failed call, or DescribeInstances while waiting for the state). */
const POLL_MS = 2_000;
/** Leases are read for at most this many dead-looking nodes at once. */
const LEASE_READS_AT_ONCE = 8;

const optedIn = (n: k8s.V1Node): boolean => n.metadata?.labels?.[FENCING_LABEL] === FENCING_LABEL_ENABLED;
const zoneOf = (n: k8s.V1Node): string | null => nodeZoneOf(n.metadata?.labels ?? {}) ?? null;
const poolOf = (n: k8s.V1Node | undefined): string | undefined => (n ? nodePoolOf(n.metadata?.labels ?? {}) : undefined);

/** withGate — a FENCE verdict held by the approval gate says so in its message. */
function withGate(v: FencingVerdict, gate: FenceGate | undefined): FencingVerdict {
  if (!gate || gate.action === 'fence' || gate.action === 'request_approval') return v;
  const why = gate.action === 'rejected' ? `fencing it was rejected (${gate.approvalId}): not asked again for this node` : `waits for approval ${gate.approvalId} (${gate.status})`;
  return { ...v, message: `${v.message}; ${why}` };
}
const gateKey = (g: FenceGate | undefined): string => (!g || g.action === 'fence' || g.action === 'request_approval' ? '' : `${g.approvalId}:${g.action === 'approval_open' ? g.status : 'rejected'}`);

/** What one cycle knows, for carrying out approved fences against it. */
interface CycleView {
  readonly nodes: ReadonlyMap<string, k8s.V1Node>;
  readonly candidates: ReadonlyMap<string, FenceCandidate>;
  readonly decision: FencingDecision;
  readonly now: Date;
}

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
    @Inject(NODE_SOURCE) private readonly source: NodeSource,
    @Inject(KUBE_FENCING) private readonly kube: KubeFencing,
    @Inject(KUBE_NODES) private readonly nodes: KubeNodes,
    @Inject(FENCING_REPOSITORY) private readonly repo: FencingRepository,
    @Inject(FENCE_APPROVALS) private readonly approvals: ApprovalStore,
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
    const relevant = all.filter((n) => optedIn(n) || !isNodeReady(n));
    const now = this.clock.now();
    const dead = relevant.filter((n) => optedIn(n) && !isNodeReady(n));
    const leases = await this.readLeases(dead);
    const fenced = await this.repo.fencedUids(dead.map((n) => n.metadata?.uid ?? ''));
    const candidates: FenceCandidate[] = [];
    for (const n of relevant) {
      const name = n.metadata?.name ?? '';
      const lease = leases.get(name);
      // A Lease that could not be read this cycle: no verdict on a guess; the node is looked at again next cycle.
      if (optedIn(n) && !isNodeReady(n) && lease === 'error') continue;
      candidates.push({
        ...this.candidateOf(n),
        ...(lease !== undefined && lease !== 'error' ? { lease } : {}),
        alreadyFenced: fenced.has(n.metadata?.uid ?? ''),
      });
    }
    const decision = decideFencing(candidates, now, {
      enabled: this.config.FENCING_ENABLED,
      leaseTimeoutSeconds: this.config.FENCING_LEASE_TIMEOUT_SECONDS,
      maxUnhealthyPercent: this.config.FENCING_MAX_UNHEALTHY_PERCENT,
    });
    const cacheByName = new Map(all.map((n) => [n.metadata?.name ?? '', n]));
    // DISRUPTION_APPROVAL for `fence`: under `manual` a FENCE verdict becomes a request (docs/fencing.md#approval).
    const gates = await this.gates(decision, cacheByName, now);
    const verdicts = decision.verdicts.map((v) => withGate(v, gates.get(v.node)));
    // Verdicts are written when they change (decision, reason and gate per node, the shares), not every cycle.
    const key = JSON.stringify([verdicts.map((v) => [v.node, v.decision, v.reason, gateKey(gates.get(v.node))]), decision.overall, decision.zones]);
    const before = await this.repo.state();
    if (key !== this.savedKey) {
      const changed = (before?.suspended ?? false) !== decision.suspended;
      await this.repo.saveEvaluation(verdicts, decision, now, changed ? [
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
      ] : []);
    }
    this.savedKey = key;
    this.suspendedGauge.set({ service: 'uncordon' }, decision.suspended ? 1 : 0);
    const where = decision.overall.suspended ? decision.overall : decision.zones.find((z) => z.suspended);
    this.suspendedDetail = where
      ? `fencing suspended: ${where.dead} of ${where.total} opted-in nodes${where.zone ? ` in ${where.zone}` : ''} look dead (suspected partition)`
      : undefined;
    if (decision.suspended !== (before?.suspended ?? false)) this.logger.warn(decision.suspended ? 'fencing suspended: suspected partition' : 'fencing resumed', { overall: decision.overall });
    for (const c of decision.fence) {
      if ((gates.get(c.name)?.action ?? 'fence') === 'fence') await this.start(c, decision.verdicts.find((v) => v.node === c.name)!, now);
    }
    // Approved fences, each re-checked against this cycle's view (the leader only: this cycle runs nowhere else).
    const view: CycleView = { nodes: cacheByName, candidates: new Map(candidates.map((c) => [c.name, c])), decision, now };
    await approvalsPass(this.approvals, { execute: (a, meta) => this.executeApproved(a, meta, view) }, { actor: FENCING_ACTOR, correlationId: randomUUID() });
    this.kick();
    return decision.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : {};
  }

  /**
   * gates — under `manual` for `fence`, what each FENCE verdict does instead of a fence (`gateFence`, on the node
   * object's earlier fence approvals): a request is made when none is open and none was rejected. Dry runs record
   * what would have run, as before: nothing is done, so nothing waits for an approval. Under `automatic`, none.
   */
  private async gates(decision: FencingDecision, nodes: ReadonlyMap<string, k8s.V1Node>, now: Date): Promise<Map<string, FenceGate>> {
    const out = new Map<string, FenceGate>();
    const mode = approvalModeFor(this.config.DISRUPTION_APPROVAL, 'fence');
    if (mode === 'automatic' || this.config.FENCING_DRY_RUN || decision.fence.length === 0) return out;
    const earlier = await this.approvals.ofSubjects(decision.fence.map((c) => c.name));
    for (const c of decision.fence) {
      const mine = earlier.filter((a) => a.subject === c.name && a.extra['nodeUid'] === c.uid);
      let gate = gateFence(mode, mine);
      if (gate.action === 'request_approval') {
        const verdict = decision.verdicts.find((v) => v.node === c.name)!;
        const a = await this.approvals.request(
          {
            subject: c.name,
            reason: `fence ${c.name} (${c.instanceId}, ${this.config.FENCING_ACTION === 'stop' ? 'StopInstances with Force' : 'TerminateInstances'}): ${verdict.message}`,
            planId: null,
            nodes: [
              {
                node: c.name,
                nodePool: poolOf(nodes.get(c.name)) ?? null,
                reason: 'hung',
                instanceId: c.instanceId!,
                evidence: { ready: c.ready, notReadySince: verdict.notReadySince, leaseRenewedAt: verdict.leaseRenewedAt, leaseStaleSeconds: verdict.leaseStaleSeconds, message: verdict.message },
              },
            ],
            extra: { nodeUid: c.uid, instanceId: c.instanceId, zone: c.zone, action: this.config.FENCING_ACTION },
          },
          { actor: FENCING_ACTOR, correlationId: randomUUID() },
        );
        gate = { action: 'approval_open', approvalId: a.id, status: a.status };
        this.logger.info('fence waits for approval', { node: c.name, approvalId: a.id, instanceId: c.instanceId, expiresAt: a.expiresAt, at: now.toISOString() });
      }
      out.set(c.name, gate);
    }
    return out;
  }

  /**
   * executeApproved — one approved fence, as its approver: outside the node's maintenance window it waits (not
   * claimed); otherwise claimed (a conditional update: never twice, however many replicas) and re-checked against
   * this cycle (`recheckApprovedFence`). A node that no longer holds ends the approval `failed` with its reason; one
   * that does has its fence's intent recorded in the same transaction that ends the approval `executed` with the
   * operation's id — the fence then runs its recorded steps like any other.
   */
  private async executeApproved(a: ApprovalView, meta: CommandMeta, view: CycleView): Promise<void> {
    const extra = await this.approvals.extra(a.id);
    const node = view.nodes.get(a.subject);
    const candidate = view.candidates.get(a.subject) ?? (node ? this.candidateOf(node) : undefined);
    const pool = poolOf(node) ?? a.nodes[0]?.nodePool ?? undefined;
    const check = recheckApprovedFence(
      { node: a.subject, nodeUid: String(extra['nodeUid'] ?? '') },
      { ...(candidate ? { candidate } : {}), ...(view.decision.verdicts.find((v) => v.node === a.subject) ? { verdict: view.decision.verdicts.find((v) => v.node === a.subject)! } : {}), window: windowState(this.config.DISRUPTION_WINDOWS, pool, this.clock.now()) },
    );
    if (!check.go && check.wait) {
      this.logger.debug('approved fence waits for its maintenance window', { approvalId: a.id, node: a.subject, opensAt: check.opensAt?.toISOString() });
      return;
    }
    if (!(await this.approvals.claim(a.id))) return;
    if (!check.go) {
      await this.approvals.finish(a.id, [{ node: a.subject, outcome: 'skipped', reason: check.reason, detail: check.detail }], meta);
      return;
    }
    const verdict = view.decision.verdicts.find((v) => v.node === a.subject)!;
    const started = await this.start(check.candidate, verdict, this.clock.now(), { approval: a, meta });
    if (!started) {
      await this.approvals.finish(a.id, [{ node: a.subject, outcome: 'skipped', reason: 'already_fenced', detail: 'this node object was fenced already (one fence per node, ever)' }], meta);
    }
  }

  /** candidateOf — a node as the fencing rule sees it, without its Lease (also for the re-check of an approved fence). */
  private candidateOf(n: k8s.V1Node): FenceCandidate {
    const ready = readinessOf(n);
    return {
      name: n.metadata?.name ?? '',
      uid: n.metadata?.uid ?? '',
      zone: zoneOf(n),
      optedIn: optedIn(n),
      instanceId: parseProviderId(n.spec?.providerID)?.instanceId ?? null,
      ready: ready?.status ?? 'Unknown',
      notReadySince: ready?.status === 'True' ? null : (ready?.lastTransitionTime ?? null),
      alreadyFenced: false,
    };
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

  /**
   * start — records the intent (or, in dry run, the fence that would have run) once per node object. For an approved
   * fence, the approver is its actor and the approval ends `executed` in the same transaction; false when the node
   * object was fenced already.
   */
  private async start(c: FenceCandidate, verdict: FencingVerdict, now: Date, approved?: { approval: ApprovalView; meta: CommandMeta }): Promise<boolean> {
    const dryRun = this.config.FENCING_DRY_RUN && !approved;
    if (dryRun && (await this.repo.dryRunUids([c.uid])).has(c.uid)) return false;
    const id = randomUUID();
    const at = now.toISOString();
    const actor = approved?.meta.actor ?? FENCING_ACTOR;
    const inserted = await this.repo.start(
      {
        id,
        node: c.name,
        nodeUid: c.uid,
        instanceId: c.instanceId!,
        zone: c.zone,
        action: this.config.FENCING_ACTION,
        dryRun,
        status: dryRun ? FencingStatus.COMPLETED : FencingStatus.PENDING,
        actor,
        steps: [{ status: dryRun ? FencingStatus.COMPLETED : FencingStatus.PENDING, at, detail: dryRun ? 'dry run: nothing was done' : approved ? `intent recorded: approval ${approved.approval.id} by ${actor}` : 'intent recorded' }],
        evidence: { verdict, leaseRenewedAt: c.lease?.renewTime?.toISOString() ?? null, ...(approved ? { approvalId: approved.approval.id } : {}) },
        startedAt: now,
      },
      {
        ...(dryRun ? { record: this.recordOf({ id, node: c.name, dryRun: true, actor }, 'DRY_RUN', 'completed', { verdict }, now) } : {}),
        ...(approved
          ? {
              also: (tx: SqlRunner) =>
                this.approvals.finish(
                  approved.approval.id,
                  [{ node: c.name, outcome: 'started', reason: 'fence', detail: `fence ${id} of ${c.instanceId} intended`, operationId: id }],
                  approved.meta,
                  undefined,
                  tx,
                ),
            }
          : {}),
      },
    );
    if (!inserted) return false;
    this.logger.info(dryRun ? 'fence (dry run)' : 'fence intended', { node: c.name, operationId: id, instanceId: c.instanceId, action: this.config.FENCING_ACTION, actor, ...(approved ? { approvalId: approved.approval.id } : {}) });
    return true;
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
      if (deadline > this.clock.now().getTime() || isNodeReady(node)) {
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
            const r = await this.bus.send('spot-advisor', Commands.instanceFence, { instanceId: op.instanceId, action: op.action, force: true }, newMeta(FENCING_ACTOR, op.id));
            asked = true;
            seen = { state: r.currentState };
          } else {
            const r = await this.bus.send('spot-advisor', Commands.instancesDescribe, { instanceIds: [op.instanceId] }, newMeta(FENCING_ACTOR, op.id));
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
        const r = await this.kube.taintOutOfService(op.node, op.nodeUid, this.clock.now()).catch((err: Error) => ({ ok: false as const, notFound: false, conflict: false, message: err.message }));
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
  private async step(op: FencingRow, from: FencingStatus, to: FencingStatus, detail: string, set: FencingSet = {}): Promise<boolean> {
    const now = this.clock.now();
    const ok = await this.repo.step(op.id, from, to, { status: to, at: now.toISOString(), detail }, now, set);
    if (!ok) this.logger.info('fencing operation moved on elsewhere; left to it', { node: op.node, operationId: op.id });
    else this.logger.info(`fencing ${to}`, { node: op.node, operationId: op.id, detail });
    return ok;
  }

  private async complete(op: FencingRow, from: FencingStatus, podsDeleted: number, message: string): Promise<void> {
    const now = this.clock.now();
    const record = this.recordOf(op, 'FENCED', FencingStatus.COMPLETED, { instanceId: op.instanceId, action: op.action, instanceState: op.instanceState, podsDeleted, message }, now, [
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
    const done = await this.repo.step(op.id, from, FencingStatus.COMPLETED, { status: FencingStatus.COMPLETED, at: now.toISOString(), detail: message }, now, { podsDeleted, message, finished: true }, record);
    if (!done) return;
    this.fences.inc({ service: 'uncordon', status: FencingStatus.COMPLETED, reason: 'FENCED' });
    this.logger.info('node fenced', { node: op.node, operationId: op.id, instanceId: op.instanceId, podsDeleted });
    await this.kubeEvent(op, 'NodeFenced', message, 'Warning');
  }

  /** end — failed or abandoned, with its scaling event; nothing else in the cluster changes. */
  private async end(op: FencingRow, from: FencingStatus, to: typeof FencingStatus.FAILED | typeof FencingStatus.ABANDONED, reason: string, message: string, instanceState: string | null = null): Promise<void> {
    const now = this.clock.now();
    const record = this.recordOf(op, reason, to, { instanceId: op.instanceId, action: op.action, message }, now);
    const ended = await this.repo.step(op.id, from, to, { status: to, at: now.toISOString(), detail: message }, now, { reason, message, instanceState, finished: true }, record);
    if (!ended) return;
    this.fences.inc({ service: 'uncordon', status: to, reason });
    this.logger.warn(`fencing ${to}`, { node: op.node, operationId: op.id, reason, message });
    if (to === FencingStatus.FAILED) await this.kubeEvent(op, 'FencingFailed', message, 'Warning');
  }

  /** recordOf — a fencing step's scaling event (action `fence`, as the operation's actor) and the events that go with it. */
  private recordOf(op: { id: string; node: string; dryRun: boolean; actor: string }, reason: string, decision: string, evidence: Record<string, unknown>, now: Date, events: FencingRecord['events'] = []): FencingRecord {
    return { row: { nodeName: op.node, action: FENCE_ACTION, decision, reason, actor: op.actor, operationId: op.id, dryRun: op.dryRun, evidence, createdAt: now }, events };
  }

  private async kubeEvent(op: FencingRow, reason: string, message: string, type: 'Normal' | 'Warning'): Promise<void> {
    await this.nodes
      .nodeEvent({ metadata: { name: op.node, uid: op.nodeUid } }, reason, message, this.clock.now(), type)
      .catch((err) => this.logger.debug('fencing Kubernetes Event not written', { node: op.node, err: (err as Error).message }));
  }
}
