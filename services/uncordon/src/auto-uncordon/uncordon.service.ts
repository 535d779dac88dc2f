import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { V1Node } from '@kubernetes/client-node';
import {
  UNCORDONED_AT_ANNOTATION,
  EventTypes,
  LIST_CURSORS,
  NTH_REBALANCE_TAINT_KEY,
  UncordonReason,
  type NodeUncordonedData,
  type UncordonVerdict,
} from '@nodes-manager/contracts';
import {
  CLOCK,
  CodedError,
  LOGGER,
  makeEvent,
  METRICS,
  OUTBOX,
  type Clock,
  type JsonLogger,
  type LeaderElector,
  type Metrics,
  type Outbox,
  PAUSE_GATE,
  type PauseGate,
} from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import { PressureService } from '../pressure/pressure.service.js';
import { holdForPressure } from '../pressure/domain/decide-pressure.js';
import { holdForPause } from './domain/hold-for-pause.js';
import type { Admission } from '@nodes-manager/disruption';
import { cordonedNodeSnapshot } from './domain/cordoned-node.js';
import {
  budgetLeft,
  decideUncordon,
  describeVerdict,
  selectWithinBudget,
  uncordonPatch,
  type CordonObservation,
  type UncordonRuleConfig,
} from './domain/decide-uncordon.js';
import type { KubeNodes } from '../adapters/outbound/kube-nodes.adapter.js';
import type { NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { UNCORDON_ACTION, type ObservationRow, type PendingUncordon, type UncordonRepository } from './uncordon.repository.js';
import { KUBE_NODES, NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER, UNCORDON_REPOSITORY } from '../tokens.js';

const CORDONS_CURSOR = LIST_CURSORS['cordons'];
import { RebalanceLedgerService, type PoolMeasure } from '../rebalance-ledger/rebalance-ledger.service.js';
import type { RebalanceFigures } from '@nodes-manager/contracts';

/** The actor of every action the loop takes on its own. */
export const LOOP_ACTOR = 'system:uncordon';
/** Kubernetes Event reason on a Node we uncordoned. */
export const UNCORDONED_EVENT_REASON = 'NodesManagerUncordoned';

/** ActResult — what one attempted uncordon came to (the `result` label of `nodes_manager_uncordons_total`). */
export type ActResult = 'uncordoned' | 'conflict' | 'stale' | 'gone' | 'not-leader' | 'error';

/** CordonView — one cordoned node as `cordons.list` returns it: the verdict, its reason in words, and when. */
export interface CordonView extends UncordonVerdict {
  readonly description: string;
  /** ISO 8601, when waiting: the moment the grace period (backed off) ends. */
  readonly uncordonAt?: string;
  readonly firstSeenCordonedAt?: string;
  /** The node's Spot pool as the rebalance ledger measured it, and the grace period it gets (docs/rebalance-ledger.md). */
  readonly rebalance?: PoolMeasure;
}

export interface CycleResult {
  readonly verdicts: UncordonVerdict[];
  readonly acted: Record<string, ActResult>;
  /** The soonest a node will change its verdict by itself (grace ends, budget frees): run again then. */
  readonly requeueAfterMs?: number;
}

/** A pass that met a conflict, an error or an unrecorded uncordon looks again this soon. */
export const RETRY_PASS_MS = 1_000;
/** How often the record of a landed uncordon is tried at once before it is left to the next pass (its intent stays). */
const RECORD_ATTEMPTS = 3;

/** ruleConfig — the `AUTO_UNCORDON_*` variables as the pure rule takes them. */
export const ruleConfig = (c: UncordonConfig): UncordonRuleConfig => ({
  enabled: c.AUTO_UNCORDON_ENABLED,
  dryRun: c.AUTO_UNCORDON_DRY_RUN,
  gracePeriodMinutes: c.AUTO_UNCORDON_GRACE_PERIOD_MINUTES,
  cordonManagers: c.AUTO_UNCORDON_CORDON_MANAGERS,
  maxPerCycle: c.AUTO_UNCORDON_MAX_PER_CYCLE,
});

/**
 * UncordonService — auto-uncordon (docs/auto-uncordon.md): load (cached nodes, observations, flap history) → decide (pure rule
 * and budget) → act (fresh GET, re-decide, resourceVersion-guarded patch) → record (scaling_events + outbox in one
 * transaction, then a Kubernetes Event). Only the leader runs passes (the auto-uncordon controller's one key,
 * docs/uncordon.md#controllers); any replica answers `cordons.list`.
 */
@Injectable()
export class UncordonService {
  private readonly rule: UncordonRuleConfig;
  /** AUTO_UNCORDON_GRACE_MODE=learned: each pool's grace comes from the rebalance ledger (never below the configured). */
  private readonly learnedGrace: boolean;
  /** The window of the per-cycle budget: `AUTO_UNCORDON_MAX_PER_CYCLE` uncordons per scan interval. */
  private readonly budgetWindowMs: number;
  private readonly cordonedGauge;
  private readonly uncordons;
  /** PRESSURE_MEMORY_FULL_THRESHOLD: above it a node is not uncordoned (docs/pressure.md). */
  private readonly pressureThreshold: number;
  private readonly pressureRequeueMs: number;

  constructor(
    @Inject(UNCORDON_CONFIG) config: UncordonConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(KUBE_NODES) private readonly kube: KubeNodes,
    @Inject(NODE_SOURCE) private readonly source: NodeSource,
    @Inject(UNCORDON_REPOSITORY) private readonly repo: UncordonRepository,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    @Inject(METRICS) metrics: Metrics,
    @Inject(PressureService) private readonly pressure: PressureService,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
    @Optional() @Inject(RebalanceLedgerService) private readonly rebalances?: RebalanceLedgerService,
  ) {
    this.rule = ruleConfig(config);
    this.pressureThreshold = config.PRESSURE_MEMORY_FULL_THRESHOLD;
    this.pressureRequeueMs = config.PRESSURE_INTERVAL_SECONDS * 1000;
    this.learnedGrace = config.AUTO_UNCORDON_GRACE_MODE === 'learned';
    this.budgetWindowMs = config.SCAN_INTERVAL_SECONDS * 1000;
    this.cordonedGauge = metrics.gauge('nodes_manager_cordoned_nodes', 'Cordoned nodes by auto-uncordon verdict', ['decision', 'reason']);
    this.uncordons = metrics.counter('nodes_manager_uncordons_total', 'Auto-uncordon attempts by result', ['result']);
  }

  /**
   * pass — one pass over every cordoned node: record what landed unrecorded, observe, decide (the rule and the
   * budget), act on each `uncordon` verdict, save the verdicts. The auto-uncordon controller runs it as its one key,
   * so passes never overlap and a change during one makes one more right after (docs/design.md#cycles).
   */
  async pass(): Promise<CycleResult> {
    let unrecorded = await this.reconcilePending();
    const now = this.clock.now();
    const cordoned = this.source.list().filter((n) => n.spec?.unschedulable === true);
    const names = cordoned.map((n) => n.metadata?.name ?? '');
    await this.repo.observe(cordoned.map((n) => ({ name: n.metadata?.name ?? '', uid: n.metadata?.uid ?? '' })), now);
    await this.repo.forgetAllBut(names);
    const verdicts = await this.evaluate(cordoned, now);

    const acted: Record<string, ActResult> = {};
    for (const v of verdicts) {
      if (v.decision === 'uncordon') {
        const { result, recorded } = await this.act(v.node);
        acted[v.node] = result;
        unrecorded ||= !recorded;
        this.uncordons.inc({ service: 'uncordon', result });
      } else if (v.reason === UncordonReason.DRY_RUN) {
        await this.recordDryRun(v);
      }
    }
    const remaining = verdicts.filter((v) => acted[v.node] !== 'uncordoned');
    await this.repo.saveVerdicts(remaining.map((v) => ({ node: v.node, verdict: v as unknown as Record<string, unknown> })), now);

    this.cordonedGauge.reset();
    for (const v of remaining) this.cordonedGauge.inc({ service: 'uncordon', decision: v.decision, reason: v.reason });
    const waits = verdicts.flatMap((v) => (v.decision === 'wait' && v.requeueAfterMs !== undefined ? [v.requeueAfterMs] : []));
    // A conflict or an error is looked at again soon; so is an uncordon whose record failed (its intent stays).
    const again = unrecorded || Object.values(acted).some((r) => r === 'conflict' || r === 'error');
    const requeue = Math.min(...waits, ...(again ? [RETRY_PASS_MS] : []));
    return { verdicts, acted, ...(Number.isFinite(requeue) ? { requeueAfterMs: requeue } : {}) };
  }

  /**
   * evaluate — the rule and the budget over cached nodes (no write): what each cordoned node's verdict is now. The
   * budget is what the scan interval has left (our uncordons in the last interval count against it), so cycles set
   * off by watch events or requeues evaluate and report, but never uncordon more than the budget per interval.
   */
  private async evaluate(cordoned: V1Node[], now: Date): Promise<UncordonVerdict[]> {
    const names = cordoned.map((n) => n.metadata?.name ?? '');
    const [observations, history, recent, pressure] = await Promise.all([
      this.repo.observations(names),
      this.repo.uncordonHistory(names, now),
      this.repo.recentUncordons(new Date(now.getTime() - this.budgetWindowMs)),
      this.pressure.memoryOf(names),
    ]);
    const pools = await this.poolFigures();
    const admission = await this.admission();
    const verdicts = cordoned.map((n) => {
      const name = n.metadata?.name ?? '';
      const v = decideUncordon(cordonedNodeSnapshot(n), this.observation(observations.get(name), history.get(name), n), now, this.ruleFor(n, pools));
      return holdForPause(holdForPressure(v, pressure.get(name), this.pressureThreshold, this.pressureRequeueMs), admission, this.pressureRequeueMs);
    });
    const budget = budgetLeft(this.rule.maxPerCycle, this.budgetWindowMs, recent, now);
    return selectWithinBudget(verdicts, budget.allowed, budget.freesInMs);
  }

  /** admission — the disruption gate for auto-uncordon now: only a pause of scope `all` holds it (docs/pause.md). */
  private async admission(): Promise<Admission> {
    return this.pause.admit('uncordon');
  }

    /** poolFigures — the ledger's figures per pool, read only in learned grace mode. */
  private async poolFigures(): Promise<Map<string, RebalanceFigures> | undefined> {
    if (!this.learnedGrace || !this.rebalances) return undefined;
    return this.rebalances.poolFigures().catch((err) => {
      this.logger.warn('rebalance figures unavailable; the configured grace applies', { err: (err as Error).message });
      return undefined;
    });
  }

  /** ruleFor — the rule's config for this node: in learned mode its pool's grace ({@link graceFor}), else the configured. */
  private ruleFor(node: V1Node, pools: Map<string, RebalanceFigures> | undefined): UncordonRuleConfig {
    if (!pools || !this.rebalances) return this.rule;
    return { ...this.rule, gracePeriodMinutes: this.rebalances.measureOf(node, pools).grace.minutes };
  }

  /**
   * observation — the recorded first sight of this node object's cordon and its flap history. A replica that has
   * not recorded the cordon yet (only the leader records) counts it as first seen now.
   */
  private observation(row: ObservationRow | undefined, uncordonedAt: Date[] | undefined, node: V1Node): CordonObservation | undefined {
    if (row && row.nodeUid === (node.metadata?.uid ?? '')) return { firstSeenCordonedAt: row.firstSeenCordonedAt, uncordonedAt: uncordonedAt ?? [] };
    return uncordonedAt?.length ? { firstSeenCordonedAt: this.clock.now(), uncordonedAt } : undefined;
  }

  /**
   * act — re-decide on one fresh read; then the rebalance ledger's row of this cordon (so a rebalance reversed in its
   * first pass, after a restart or a failover, is in the ledger too), the guarded patch, the record and the
   * Kubernetes Event. `recorded` is false when the patch landed but its record is left to the next pass.
   */
  private async act(name: string): Promise<{ result: ActResult; recorded: boolean }> {
    const done = (result: ActResult, recorded = true) => ({ result, recorded });
    try {
      const fresh = await this.kube.getNode(name);
      if (!fresh) return done('gone');
      const now = this.clock.now();
      const [observations, history, pressure] = await Promise.all([this.repo.observations([name]), this.repo.uncordonHistory([name], now), this.pressure.memoryOf([name])]);
      const snapshot = cordonedNodeSnapshot(fresh);
      const verdict = holdForPause(
        holdForPressure(
          decideUncordon(snapshot, this.observation(observations.get(name), history.get(name), fresh), now, this.ruleFor(fresh, await this.poolFigures())),
          pressure.get(name),
          this.pressureThreshold,
          this.pressureRequeueMs,
        ),
        await this.admission(),
        this.pressureRequeueMs,
      );
      if (verdict.decision !== 'uncordon') {
        this.logger.info('stale plan dropped on a fresh read', { node: name, decision: verdict.decision, reason: verdict.reason });
        return done('stale');
      }
      if (!(await this.leader.stillLeader())) return done('not-leader');
      // The ledger's row first: the cordon it records is gone once the patch lands (docs/rebalance-ledger.md).
      await this.rebalances?.observe(fresh);
      const description = describeVerdict(verdict);
      const rebalanceTaintRemoved = snapshot.taints.some((t) => t.key === NTH_REBALANCE_TAINT_KEY);
      const data: NodeUncordonedData = {
        node: name,
        reason: verdict.reason,
        description,
        evidence: verdict.evidence,
        uncordonedAt: now.toISOString(),
        rebalanceTaintRemoved,
      };
      const intent: PendingUncordon = {
        at: now.toISOString(),
        eventId: randomUUID(),
        data: data as unknown as Record<string, unknown>,
        event: {
          id: randomUUID(),
          nodeName: name,
          action: UNCORDON_ACTION,
          decision: verdict.decision,
          reason: verdict.reason,
          actor: LOOP_ACTOR,
          evidence: { ...verdict.evidence, description, rebalanceTaintRemoved, resourceVersion: snapshot.resourceVersion },
          createdAt: now,
        },
      };
      // Intent first: if the patch lands and its record then fails, the next pass records it (reconcilePending).
      await this.repo.setPending(name, intent);
      const result = await this.kube.patchNode(name, uncordonPatch(snapshot, now, description));
      if (!result.ok) {
        await this.repo.clearPending(name);
        if (result.conflict) {
          this.logger.info('node changed since the read; re-read next pass', { node: name, decision: 'uncordon', reason: 'CONFLICT' });
          return done('conflict');
        }
        this.logger.warn('uncordon patch failed', { node: name, err: result.message });
        return done(result.notFound ? 'gone' : 'error');
      }
      const recorded = await this.record(name, intent);
      this.logger.info('node uncordoned', { node: name, decision: verdict.decision, reason: verdict.reason, evidence: verdict.evidence });
      await this.kube.nodeEvent(result.node, UNCORDONED_EVENT_REASON, description, now).catch((err) =>
        this.logger.warn('could not record the Kubernetes Event', { node: name, err: (err as Error).message }),
      );
      return done('uncordoned', recorded);
    } catch (err) {
      this.logger.warn('uncordon failed; retried next pass', { node: name, err: (err as Error).message });
      return done('error');
    }
  }

  /**
   * record — the `scaling_events` row, the end of the observation (with its pending intent) and the
   * `node.uncordoned` event, in one transaction; false when it failed. Tried a few times at once (a dropped
   * connection, a lost acknowledgement); if it still fails the intent stays and the next pass's reconcilePending
   * records it (the pass asks to run again soon), so a landed uncordon is never left without its record and event.
   * Idempotent: the row and the event carry the intent's ids, and when the row is already there (a commit that
   * landed while its acknowledgement was lost) the event is not added again.
   */
  private async record(name: string, intent: PendingUncordon): Promise<boolean> {
    const createdAt = new Date(intent.event.createdAt);
    for (let attempt = 1; ; attempt++) {
      try {
        const event = makeEvent('uncordon', EventTypes.nodeUncordoned, intent.data, createdAt, { actor: LOOP_ACTOR, subject: name });
        await this.repo.recordUncordon({ ...intent.event, createdAt }, name, this.outbox, { ...event, id: intent.eventId });
        this.outbox.added();
        return true;
      } catch (err) {
        if (attempt >= RECORD_ATTEMPTS) {
          this.logger.error('uncordon landed but its record failed; the next pass records it', { node: name, err: (err as Error).message });
          return false;
        }
      }
    }
  }

  /**
   * reconcilePending — intents left by an uncordon whose outcome was not recorded (a crash or a database failure
   * between the patch and its record): on a fresh read, our `uncordoned-at` annotation with the intent's time proves
   * the patch landed, so it is recorded now; otherwise the patch never landed and the intent is dropped. True when
   * a record failed again (its intent stays for the next pass).
   */
  private async reconcilePending(): Promise<boolean> {
    let left = false;
    for (const { node, intent } of await this.repo.pendingUncordons()) {
      const fresh = await this.kube.getNode(node);
      if (fresh?.metadata?.annotations?.[UNCORDONED_AT_ANNOTATION] === intent.at) {
        if (!(await this.record(node, intent))) {
          left = true;
          continue;
        }
        this.uncordons.inc({ service: 'uncordon', result: 'uncordoned' });
        this.logger.warn('recorded an uncordon whose record had failed', { node, at: intent.at });
      } else {
        await this.repo.clearPending(node);
        this.logger.info('dropped the intent of an uncordon that did not land', { node, at: intent.at });
      }
    }
    return left;
  }

  /** recordDryRun — a dry run records its decision once per cordon (same T), never patching. */
  private async recordDryRun(v: UncordonVerdict): Promise<void> {
    if (await this.repo.hasDryRun(v.node, v.evidence.cordonedSince)) return;
    await this.repo.recordScalingEvent({
      nodeName: v.node,
      action: UNCORDON_ACTION,
      decision: v.decision,
      reason: v.reason,
      actor: LOOP_ACTOR,
      dryRun: true,
      evidence: { ...v.evidence, description: describeVerdict(v) },
      createdAt: new Date(v.evaluatedAt),
    });
    this.uncordons.inc({ service: 'uncordon', result: 'dry-run' });
    this.logger.info('would uncordon (dry run)', { node: v.node, decision: v.decision, reason: v.reason });
  }

  /** cordons — every cordoned node with its verdict now; any replica answers (reads only). */
  async cordons(q: { limit: number; cursor?: string; verdict?: string }): Promise<{ items: CordonView[]; nextCursor?: string }> {
    const nodes = this.source.synced ? this.source.list() : (await this.kube.listNodes()).items;
    const cordoned = nodes
      .filter((n) => n.spec?.unschedulable === true)
      .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const now = this.clock.now();
    const verdicts = await this.evaluate(cordoned, now);
    const observations = await this.repo.observations(verdicts.map((v) => v.node));
    const byName = new Map(cordoned.map((n) => [n.metadata?.name ?? '', n]));
    const pools = this.rebalances ? await this.rebalances.poolFigures().catch(() => undefined) : undefined;
    let views = verdicts
      .filter((v) => !q.verdict || v.decision === q.verdict)
      .map((v): CordonView => {
        const first = observations.get(v.node)?.firstSeenCordonedAt;
        return {
          ...v,
          description: describeVerdict(v),
          ...(v.decision === 'wait' && v.requeueAfterMs !== undefined ? { uncordonAt: new Date(now.getTime() + v.requeueAfterMs).toISOString() } : {}),
          ...(first ? { firstSeenCordonedAt: first.toISOString() } : {}),
          ...(pools && this.rebalances && byName.has(v.node) ? { rebalance: this.rebalances.measureOf(byName.get(v.node)!, pools) } : {}),
        };
      });
    if (q.cursor) {
      const [after] = CORDONS_CURSOR.decode(q.cursor);
      views = views.filter((v) => v.node > after);
    }
    const page = views.slice(0, q.limit);
    return views.length > q.limit ? { items: page, nextCursor: CORDONS_CURSOR.encode([page.at(-1)!.node]) } : { items: page };
  }
}
