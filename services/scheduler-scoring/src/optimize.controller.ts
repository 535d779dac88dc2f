import { Inject, Injectable } from '@nestjs/common';
import type { CommandMeta } from '@nodes-manager/contracts';
import { CodedError, CONTROLLERS, type Controller, type Controllers, type LeaderElector, type ReconcileResult } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from './config.js';
import { OptimizeCycleService, type CycleResult, type OptimizeMode } from './optimize-cycle.service.js';
import type { ClusterCache } from './adapters/outbound/cluster-cache.adapter.js';
import { CLUSTER_CACHE, SCHEDULER_LEADER, SCHEDULER_SCORING_CONFIG } from './tokens.js';

/** TriggerOutcome — what one trigger cycle answers its callers: its result, or its error. */
interface TriggerOutcome extends ReconcileResult {
  readonly cycle?: CycleResult;
  readonly error?: unknown;
}

/** The optimisation decides over the whole cluster at once (one plan, one budget of disruptions): the controller's one key. */
export const OPTIMIZE_KEY = 'cluster';

/**
 * OptimizeController — the optimisation loop as a controller (docs/scoring.md#the-optimisation-controller), the leader
 * only: one key, `cluster`, reconciled by one {@link OptimizeCycleService.runLoopCycle} in OPTIMIZE_MODE — every
 * SCAN_INTERVAL_SECONDS, on becoming leader and once the cluster cache has synced; never on a cache that has not. Its
 * cycles never overlap and never pile up (one more at most, right after the one in flight: the runtime's queue), and
 * leadership is verified on the server when a cycle gets its turn. A user's `optimize.trigger` is a key of the
 * `optimize-trigger` controller, in every replica: its mode (`plan` or `execute`). Triggers that arrive while that
 * mode's cycle runs coalesce into one more cycle, whose result each of them gets (N triggers, at most two cycles;
 * the service runs cycles one at a time, the loop's included). Another replica's execution in progress (CONFLICT) is an expected skip; any other failure is retried with
 * back-off, never later than the next interval.
 */
@Injectable()
export class OptimizeController {
  readonly controller: Controller;
  /** The users' triggers: one key per mode, every replica (a command is answered where it lands). */
  readonly triggers: Controller<TriggerOutcome>;
  /** Who asked for the next cycle of each mode, in order (the first is its actor; the others are coalesced into it). */
  private readonly asked = new Map<OptimizeMode, CommandMeta[]>();
  /** Each mode's last outcome: what a trigger whose ask an earlier cycle already took is answered. */
  private readonly last = new Map<OptimizeMode, TriggerOutcome>();

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) config: SchedulerScoringConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(SCHEDULER_LEADER) leader: LeaderElector,
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(OptimizeCycleService) svc: OptimizeCycleService,
  ) {
    const everyMs = config.SCAN_INTERVAL_SECONDS * 1000;
    this.controller = controllers.controller({
      name: 'optimize',
      leader,
      // The cluster cache's sync gates every cycle (the runtime waits for it; a cycle never checks it).
      ready: () => cluster.waitForSync(),
      listKeys: () => [OPTIMIZE_KEY],
      resyncMs: everyMs,
      backoff: { maxMs: everyMs },
      reconcile: async (_key, ctx) => {
        try {
          await svc.runLoopCycle(config.OPTIMIZE_MODE, () => (ctx.signal.aborted ? Promise.resolve(false) : leader.stillLeader()));
        } catch (err) {
          if ((err as { code?: string }).code !== 'CONFLICT') throw err;
          controllers.logger.debug('scheduling cycle skipped', { reason: (err as Error).message });
        }
      },
    });
    this.triggers = controllers.controller<TriggerOutcome>({
      name: 'optimize-trigger',
      reconcile: async (key) => {
        const mode = key as OptimizeMode;
        const [meta, ...coalesced] = this.asked.get(mode) ?? [];
        this.asked.delete(mode);
        if (!meta) return this.last.get(mode) ?? {};
        if (coalesced.length) controllers.logger.info('optimisation triggers coalesced into one cycle', { mode, actor: meta.actor, correlationId: meta.correlationId, coalesced: coalesced.length });
        // The callers get the cycle's error; the runtime does not retry it (a user asks again).
        const out = await svc.runCycle({ mode, meta }).then((cycle): TriggerOutcome => ({ cycle }), (error: unknown): TriggerOutcome => ({ error }));
        this.last.set(mode, out);
        return out;
      },
    });
  }

  /**
   * trigger — `optimize.trigger`: a cycle of this mode that starts after the call, and its result (or its error).
   * Triggers during a cycle of the same mode share the next one.
   */
  async trigger(req: { dryRun?: boolean }, meta: CommandMeta): Promise<CycleResult> {
    const mode: OptimizeMode = req.dryRun === false ? 'execute' : 'plan';
    this.asked.set(mode, [...(this.asked.get(mode) ?? []), meta]);
    const out = await this.triggers.request(mode);
    if (!out) throw new CodedError('SERVICE_UNAVAILABLE', 'scheduler-scoring is stopping: no optimisation cycle runs', { mode });
    if (out.error !== undefined) throw out.error;
    return out.cycle!;
  }

  /** cycle — a loop cycle that starts after this call (none in a replica that does not lead). For tests and tooling. */
  async cycle(): Promise<void> {
    await this.controller.request(OPTIMIZE_KEY);
  }
}
