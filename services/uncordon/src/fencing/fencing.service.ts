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
  FencingStatus,
  type FencingView,
} from '@nodes-manager/contracts';
import {
  approvalsPass,
  CLOCK,
  HEALTH_REGISTRY,
  LOGGER,
  makeEvent,
  METRICS,
  PAUSE_GATE,
  type PauseGate,
  type ApprovalStore,
  type Clock,
  type HealthRegistry,
  type JsonLogger,
  type Metrics,
  type SqlRunner,
} from '@nodes-manager/platform';
import { admit, approvalModeFor, windowState, type PauseCheck } from '@nodes-manager/disruption';
import type { UncordonConfig } from '../config.js';
import { isNodeReady, nodePoolOf, parseProviderId, readinessOf, zoneOf as nodeZoneOf } from '@nodes-manager/kube';
import { decideFencing, type FenceCandidate, type FencingDecision } from './domain/decide-fencing.js';
import { fenceApprovalInPlay, gateFence, recheckApprovedFence, type FenceGate } from './domain/gate-fencing.js';
import { fencingView, type FencingRepository } from './fencing.repository.js';
import { FENCING_ACTOR, fencingRecordOf } from './fence.service.js';
import type { KubeFencing, LeaseReading } from '../adapters/outbound/kube-fencing.adapter.js';
import type { NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { FENCE_APPROVALS, FENCING_REPOSITORY, KUBE_FENCING, NODE_SOURCE, UNCORDON_CONFIG } from '../tokens.js';

export { FENCE_ACTION, FENCING_ACTOR } from './fence.service.js';
/** Leases are read for at most this many dead-looking nodes at once. */
const LEASE_READS_AT_ONCE = 8;

const optedIn = (n: k8s.V1Node): boolean => n.metadata?.labels?.[FENCING_LABEL] === FENCING_LABEL_ENABLED;
const zoneOf = (n: k8s.V1Node): string | null => nodeZoneOf(n.metadata?.labels ?? {}) ?? null;
const poolOf = (n: k8s.V1Node | undefined): string | undefined => (n ? nodePoolOf(n.metadata?.labels ?? {}) : undefined);

/** withGate — a FENCE verdict held by the approval gate says so in its message. */
function withGate(v: FencingVerdict, gate: FenceGate | undefined): FencingVerdict {
  if (!gate || gate.action === 'fence' || gate.action === 'request_approval') return v;
  if (gate.action === 'held') return { ...v, message: `${v.message}; ${gate.detail}` };
  const why = gate.action === 'rejected' ? `fencing it was rejected (${gate.approvalId}): not asked again for this node` : `waits for approval ${gate.approvalId} (${gate.status})`;
  return { ...v, message: `${v.message}; ${why}` };
}
const gateKey = (g: FenceGate | undefined): string =>
  !g || g.action === 'fence' || g.action === 'request_approval' ? '' : g.action === 'held' ? 'held' : `${g.approvalId}:${g.action === 'approval_open' ? g.status : 'rejected'}`;

/** What one cycle knows, for carrying out approved fences against it. */
interface CycleView {
  readonly nodes: ReadonlyMap<string, k8s.V1Node>;
  readonly candidates: ReadonlyMap<string, FenceCandidate>;
  readonly decision: FencingDecision;
  readonly now: Date;
}

/**
 * FencingService — decides which hung nodes that opted in to fence through EC2 (docs/fencing.md). The leader reads
 * the node cache, reads the Lease of each opted-in node that is not Ready (no Lease watch: 5,000 leases renewed every
 * 10 s would be 500 events a second), asks the pure {@link decideFencing}, records every verdict, passes each FENCE
 * verdict through the approval gate, and records the intent of each fence it starts; {@link FenceService} carries
 * each fence through its recorded steps. A partial unique index keeps one fence per node object, ever.
 */
@Injectable()
export class FencingService {
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
    @Inject(FENCING_REPOSITORY) private readonly repo: FencingRepository,
    @Inject(FENCE_APPROVALS) private readonly approvals: ApprovalStore,
    @Inject(METRICS) metrics: Metrics,
    @Inject(HEALTH_REGISTRY) health: HealthRegistry,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {
    this.suspendedGauge = metrics.gauge('nodes_manager_fencing_suspended', '1 while a suspected partition holds fencing back');
    health.register('uncordon.fencing', () =>
      this.suspendedDetail ? { ok: false, degraded: true, detail: this.suspendedDetail } : { ok: true, detail: config.FENCING_ENABLED ? 'fencing armed' : 'fencing switched off' },
    );
  }

  /**
   * evaluate — one evaluation by the leader (nothing elsewhere; the fencing controller's one key): the verdicts, the
   * approval gate, the fences started and the approved ones carried out. Answers when a waiting verdict changes by
   * itself (a Lease growing stale).
   */
  async evaluate(): Promise<{ requeueAfterMs?: number }> {
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
    // Right before fences start: the pause, then (in `gates`) the approval — the disruption gate's order.
    const pause = await this.pause.check('fence');
    const decision = decideFencing(candidates, now, {
      enabled: this.config.FENCING_ENABLED,
      leaseTimeoutSeconds: this.config.FENCING_LEASE_TIMEOUT_SECONDS,
      maxUnhealthy: { count: this.config.FENCING_MAX_UNHEALTHY_COUNT, percent: this.config.FENCING_MAX_UNHEALTHY_PERCENT },
      // The fleet-wide pause turns a FENCE verdict into a wait (docs/pause.md).
      pause,
    });
    const cacheByName = new Map(all.map((n) => [n.metadata?.name ?? '', n]));
    // DISRUPTION_APPROVAL for `fence`: under `manual` a FENCE verdict becomes a request (docs/fencing.md#approval).
    const gates = await this.gates(decision, cacheByName, now, pause);
    const verdicts = decision.verdicts.map((v) => withGate(v, gates.get(v.node)));
    // Verdicts are written when they change (decision, reason and gate per node, the shares), not every cycle.
    const key = JSON.stringify([verdicts.map((v) => [v.node, v.decision, v.reason, gateKey(gates.get(v.node))]), decision.overall, decision.zones, decision.pools]);
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
            pools: decision.pools.map((p) => ({ nodePool: p.nodePool ?? 'unknown', dead: p.dead, total: p.total, percent: p.percent, suspended: p.suspended })),
            maxUnhealthyPercent: this.config.FENCING_MAX_UNHEALTHY_PERCENT,
            maxUnhealthyCount: this.config.FENCING_MAX_UNHEALTHY_COUNT,
          },
          now,
          { actor: FENCING_ACTOR, subject: 'cluster' },
        ),
      ] : []);
    }
    this.savedKey = key;
    this.suspendedGauge.set({ service: 'uncordon' }, decision.suspended ? 1 : 0);
    const where = decision.overall.suspended ? decision.overall : (decision.zones.find((z) => z.suspended) ?? decision.pools.find((p) => p.suspended));
    this.suspendedDetail = where
      ? `fencing suspended: ${where.dead} of ${where.total} opted-in nodes${where.zone ? ` in ${where.zone}` : ''}${where.nodePool ? ` of pool ${where.nodePool}` : ''} look dead (suspected partition)`
      : undefined;
    if (decision.suspended !== (before?.suspended ?? false)) this.logger.warn(decision.suspended ? 'fencing suspended: suspected partition' : 'fencing resumed', { overall: decision.overall });
    for (const c of decision.fence) {
      if ((gates.get(c.name)?.action ?? 'fence') === 'fence') await this.start(c, decision.verdicts.find((v) => v.node === c.name)!, now);
    }
    // Approved fences, each re-checked against this cycle's view (the leader only: this cycle runs nowhere else).
    const view: CycleView = { nodes: cacheByName, candidates: new Map(candidates.map((c) => [c.name, c])), decision, now };
    await approvalsPass(this.approvals, { execute: (a, meta) => this.executeApproved(a, meta, view) }, { actor: FENCING_ACTOR, correlationId: randomUUID() });
    return decision.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : {};
  }

  /**
   * gates — under `manual` for `fence`, what each FENCE verdict does instead of a fence (`gateFence`, on the node
   * object's earlier fence approvals): a request is made when none is open and none was rejected. Dry runs record
   * what would have run, as before: nothing is done, so nothing waits for an approval. Under `automatic`, none.
   */
  private async gates(decision: FencingDecision, nodes: ReadonlyMap<string, k8s.V1Node>, now: Date, pause: PauseCheck): Promise<Map<string, FenceGate>> {
    const out = new Map<string, FenceGate>();
    const mode = approvalModeFor(this.config.DISRUPTION_APPROVAL, 'fence');
    if (mode === 'automatic' || this.config.FENCING_DRY_RUN || decision.fence.length === 0) return out;
    const earlier = await this.approvals.ofSubjects(decision.fence.map((c) => c.name));
    for (const c of decision.fence) {
      const mine = earlier.filter((a) => a.subject === c.name && a.extra['nodeUid'] === c.uid);
      let gate = gateFence(
        admit('fence', { pause, policy: this.config.DISRUPTION_APPROVAL, windows: this.config.DISRUPTION_WINDOWS, nodePool: poolOf(nodes.get(c.name)), now, approval: fenceApprovalInPlay(mine) }),
      );
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
    // The disruption gate for an approved fence: the pause (asked afresh), then its window; either holds it unclaimed.
    const admitted = await this.pause.admit('fence', { policy: this.config.DISRUPTION_APPROVAL, windows: this.config.DISRUPTION_WINDOWS, nodePool: pool, now: this.clock.now(), approval: { kind: 'approved', id: a.id } }, { fresh: true });
    if (!admitted.admit) {
      this.logger.debug('approved fence waits', { approvalId: a.id, node: a.subject, reason: admitted.reason, detail: admitted.detail });
      return;
    }
    const check = recheckApprovedFence(
      { node: a.subject, nodeUid: String(extra['nodeUid'] ?? '') },
      { ...(candidate ? { candidate } : {}), ...(view.decision.verdicts.find((v) => v.node === a.subject) ? { verdict: view.decision.verdicts.find((v) => v.node === a.subject)! } : {}), window: windowState(this.config.DISRUPTION_WINDOWS, pool, this.clock.now()) },
    );
    if (!check.go && check.wait) return;
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
      nodePool: poolOf(n) ?? null,
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
      maxUnhealthyCount: this.config.FENCING_MAX_UNHEALTHY_COUNT,
      suspended: state?.suspended ?? false,
      overall: state?.overall ?? none,
      zones: state?.zones ?? [],
      pools: state?.pools ?? [],
      verdicts,
      operations: ops.map(fencingView),
      evaluatedAt: state?.evaluatedAt.toISOString() ?? null,
    };
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
        ...(dryRun ? { record: fencingRecordOf({ id, node: c.name, dryRun: true, actor }, 'DRY_RUN', 'completed', { verdict }, now) } : {}),
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
}
