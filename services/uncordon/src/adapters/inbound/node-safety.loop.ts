import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER, type JsonLogger, type LeaderElector } from '@nodes-manager/platform';
import type { UncordonConfig } from '../../config.js';
import { FencingService } from '../../fencing/fencing.service.js';
import { PressureService } from '../../pressure/pressure.service.js';
import { UNCORDON_CONFIG, UNCORDON_LEADER } from '../../tokens.js';

/** Requeues sooner than this are rounded up. */
const MIN_REQUEUE_MS = 1_000;

/**
 * NodeSafetyLoop — the timers of fencing (every scan interval, when a waiting verdict's Lease goes stale, on becoming
 * leader; active fences are picked up on the same ticks) and of pressure watching (every PRESSURE_INTERVAL_SECONDS).
 * Thin: the services decide; a tick while a cycle runs is skipped (the next tick comes soon).
 */
@Injectable()
export class NodeSafetyLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timers: NodeJS.Timeout[] = [];
  private requeue?: NodeJS.Timeout;
  private fencingInFlight = false;
  private stopped = false;

  constructor(
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    private readonly fencing: FencingService,
    private readonly pressure: PressureService,
  ) {}

  onApplicationBootstrap(): void {
    this.leader.onChange((leader) => {
      if (!leader || this.stopped) return;
      this.fencingCycle();
      this.pressureCycle();
    });
    this.timers.push(setInterval(() => this.fencingCycle(), this.config.SCAN_INTERVAL_SECONDS * 1000));
    this.timers.push(setInterval(() => this.pressureCycle(), this.config.PRESSURE_INTERVAL_SECONDS * 1000));
    for (const t of this.timers) t.unref();
  }

  fencingCycle(): void {
    if (this.stopped || this.fencingInFlight) return;
    this.fencingInFlight = true;
    void this.fencing
      .runCycle()
      .then((r) => {
        if (r.requeueAfterMs === undefined || this.stopped) return;
        if (this.requeue) clearTimeout(this.requeue);
        this.requeue = setTimeout(() => this.fencingCycle(), Math.max(MIN_REQUEUE_MS, r.requeueAfterMs));
        this.requeue.unref();
      })
      .catch((err) => this.logger.warn('fencing cycle failed', { err: (err as Error).message }))
      .finally(() => (this.fencingInFlight = false));
  }

  pressureCycle(): void {
    if (this.stopped) return;
    void this.pressure.runCycle().catch((err) => this.logger.warn('pressure cycle failed', { err: (err as Error).message }));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const t of [...this.timers, this.requeue]) if (t) clearTimeout(t);
    await this.fencing.stop();
  }
}
