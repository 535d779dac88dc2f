import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER, type JsonLogger, type LeaderElector } from '@nodes-manager/platform';
import type { UncordonConfig } from '../../config.js';
import { DrainService } from '../../drain/drain.service.js';
import { UncordonService } from '../../auto-uncordon/uncordon.service.js';
import { RebalanceLedgerService } from '../../rebalance-ledger/rebalance-ledger.service.js';
import type { NodeSource } from '../outbound/node-source.adapter.js';
import { NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER } from '../../tokens.js';

/** A burst of node changes is evaluated once, this long after the first. */
const CHANGE_DEBOUNCE_MS = 200;
/** Requeues sooner than this are rounded up: a bound on cycles per second whatever the verdicts say. */
const MIN_REQUEUE_MS = 250;
/**
 * The leader looks for drain operations to run this often (one query on the partial index of active operations),
 * so a `node.drain` another replica recorded starts within about a second. Not the leader: no query at all.
 */
export const DRAIN_PICKUP_MS = 1_000;

/**
 * UncordonLoop — the timers: a cycle on each node change (debounced), on each scan tick (`SCAN_INTERVAL_SECONDS`;
 * the node cache resyncs on the same interval), when a verdict's requeue is due, and on becoming leader; drains are
 * picked up every `DRAIN_PICKUP_MS` and on becoming leader.
 * Thin: every decision is in the services.
 */
@Injectable()
export class UncordonLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private tick?: NodeJS.Timeout;
  private drainPickup?: NodeJS.Timeout;
  private change?: NodeJS.Timeout;
  private requeue?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(NODE_SOURCE) private readonly source: NodeSource,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    private readonly uncordon: UncordonService,
    private readonly drains: DrainService,
    private readonly rebalances: RebalanceLedgerService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.leader.onChange((leader) => {
      if (!leader || this.stopped) return;
      this.drains.kick();
      this.cycle();
    });
    this.leader.start();
    await this.source.start(() => this.onNodeChange());
    const every = this.config.SCAN_INTERVAL_SECONDS * 1000;
    this.tick = setInterval(() => this.cycle(), every);
    this.tick.unref();
    this.drainPickup = setInterval(() => this.drains.kick(), DRAIN_PICKUP_MS);
    this.drainPickup.unref();
  }

  private onNodeChange(): void {
    if (this.change || this.stopped) return;
    this.change = setTimeout(() => {
      this.change = undefined;
      this.cycle();
    }, CHANGE_DEBOUNCE_MS);
    this.change.unref();
  }

  /** cycle — one auto-uncordon pass and one rebalance ledger pass, then a timer for the soonest verdict that changes by itself. */
  cycle(): void {
    if (this.stopped) return;
    void this.uncordon
      .runCycle()
      .then(async (r) => {
        await this.rebalances.runPass();
        return r;
      })
      .then((r) => {
        if (r.requeueAfterMs === undefined || this.stopped) return;
        if (this.requeue) clearTimeout(this.requeue);
        this.requeue = setTimeout(() => {
          this.requeue = undefined;
          this.cycle();
        }, Math.max(MIN_REQUEUE_MS, r.requeueAfterMs));
        this.requeue.unref();
      })
      .catch((err) => this.logger.warn('auto-uncordon cycle failed', { err: (err as Error).message }));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const t of [this.tick, this.drainPickup, this.change, this.requeue]) if (t) clearTimeout(t);
    await this.source.stop();
    await this.drains.stop();
    await this.uncordon.runCycle().catch(() => undefined);
    await this.leader.stop();
  }
}
