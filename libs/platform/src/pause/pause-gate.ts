import type { OnApplicationBootstrap, OnApplicationShutdown, Provider } from '@nestjs/common';
import { Commands, PAUSE_OWNER, type ActivePause, type DisruptiveAction, type PauseView, type ServiceName } from '@nodes-manager/contracts';
import { admit, checkPause, describePause, pauseInForce, type Admission, type GateFacts, type PauseCheck, type PauseOnlyAction, type PauseReading } from '@nodes-manager/disruption';
import type { Clock, TimerHandle } from '../clock/clock.js';
import { CodedError } from '../errors/coded-error.js';
import type { HealthRegistry } from '../health/health.js';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import { COMMAND_BUS, newMeta, type CommandBus } from '../messaging/commands.js';
import { SERVICE_CONFIG } from '../platform.module.js';
import { LOGGER, RUNTIME } from '../runtime/tokens.js';
import type { Runtime } from '../runtime/runtime.js';

export type { PauseCheck, PauseReading } from '@nodes-manager/disruption';

/** How long `checkReady` waits for the owner's fresh answer while the state is unknown. */
export const REASK_WAIT_MS = 1_000;

/** PAUSE_GATE — the service's {@link PauseGate}: inject it (never optional: docs/pause.md#required) where a disruptive action starts. */
export const PAUSE_GATE = Symbol('PAUSE_GATE');

/** PauseSource — how a gate learns the pause: the owner's `pause.get` command, or (in the owner) its own table. */
export type PauseSource = () => Promise<PauseView | { pause: ActivePause | null }>;

export interface PauseGateOptions {
  readonly service: ServiceName;
  readonly source: PauseSource;
  readonly clock: Clock;
  readonly logger: JsonLogger;
  /** How often the owner is asked (SCAN_INTERVAL_SECONDS): a pause takes effect within one interval. */
  readonly intervalMs: number;
  readonly metrics?: Metrics;
  readonly health?: HealthRegistry;
}

/**
 * PauseGate — what one service knows of the fleet-wide pause of disruptive actions (docs/pause.md), and the one
 * check every disruptive action passes right before it starts.
 *
 * The gate asks the pause's owner (uncordon, `pause.get`) at start and every scan interval, and keeps the answer;
 * `check(action)` decides on that reading (no I/O once known), so it can sit right before each eviction, EC2 call or
 * NodeClaim deletion. A failed ask makes the state **unknown** — and unknown holds every disruptive action, as a
 * pause would: a service that cannot tell whether the fleet is paused starts nothing disruptive (it says so in its
 * readiness, `degraded: pause`). A reading older than three intervals (asks that hang) counts as unknown too.
 * A pause whose `until` has passed no longer holds anything, whether or not the owner has recorded its end.
 *
 * Stable API (other services build on it): `check`, `reading`, `refresh`, `onChange`.
 */
export class PauseGate implements OnApplicationBootstrap, OnApplicationShutdown {
  private last: PauseReading;
  private timer?: TimerHandle;
  private stopped = false;
  private first?: Promise<PauseReading>;
  private inFlight?: Promise<PauseReading>;
  private readonly listeners: ((r: PauseReading) => void)[] = [];
  private lastKey = '';

  constructor(private readonly o: PauseGateOptions) {
    this.last = { known: false, detail: `${PAUSE_OWNER} not asked yet`, since: o.clock.now() };
    o.metrics?.collectedGauge('nodes_manager_disruptions_paused', '1 while a fleet-wide pause holds disruptive actions back (docs/pause.md)', [], (g) => {
      g.set({ service: o.service }, this.pauseNow() ? 1 : 0);
    });
    o.metrics?.collectedGauge('nodes_manager_disruptions_pause_unknown', '1 while the pause state is unknown (its owner could not be asked): disruptive actions are held', [], (g) => {
      g.set({ service: o.service }, this.known() ? 0 : 1);
    });
    o.health?.register(`${o.service}.pause`, () => {
      const r = this.reading();
      if (!r.known) return { ok: false, degraded: true, detail: `pause state unknown (${r.detail}): no disruptive action starts` };
      const p = pauseInForce(r.pause, this.o.clock.now());
      return p ? { ok: false, degraded: true, detail: describePause(p) } : { ok: true, detail: 'disruptive actions allowed' };
    });
  }

  /**
   * check — the one way to ask the pause, for {@link admit} (libs/disruption) right before `action` starts. It waits
   * for the gate's first answer (the start's ask, shared), so an action in the first moments of a start is not held
   * as `pause_unknown` merely because the owner was not asked yet. While what the gate holds is unknown (the owner did
   * not answer its last ask — at a start, often because it was not consuming yet), the owner is asked again before
   * deciding, for at most {@link REASK_WAIT_MS}: a failed ask is not held against an action for a whole interval, and
   * an owner that hangs makes the action's answer a prompt "unknown", not its caller's timeout. Once known, no I/O.
   * `fresh`: the owner is asked afresh first — for an approved action about to be carried out.
   */
  async check(action: DisruptiveAction, opts: { fresh?: boolean } = {}): Promise<PauseCheck> {
    if (opts.fresh) await this.refresh();
    else await (this.first ??= this.refresh());
    if (!this.known()) {
      const ac = new AbortController();
      await Promise.race([this.refresh(), this.o.clock.sleep(REASK_WAIT_MS, ac.signal)]);
      ac.abort();
    }
    return this.decide(action);
  }

  /**
   * admit — the one way a disruptive action asks to start: {@link check} for the pause, then the disruption gate's
   * one order (libs/disruption `admit`: the pause, then the approval, then the window; docs/approvals.md#one-gate).
   * An action only the pause holds (a drain's evictions, pressure relief, auto-uncordon) needs no other fact.
   */
  admit(action: PauseOnlyAction, facts?: Record<string, never>, opts?: { fresh?: boolean }): Promise<Admission>;
  admit(action: DisruptiveAction, facts: GateFacts, opts?: { fresh?: boolean }): Promise<Admission>;
  async admit(action: DisruptiveAction, facts: GateFacts | Record<string, never> = {}, opts: { fresh?: boolean } = {}): Promise<Admission> {
    return admit(action, { ...(facts as GateFacts), pause: await this.check(action, opts) });
  }

  /** decide — may `action` start now, on the last reading (no I/O). */
  private decide(action: DisruptiveAction): PauseCheck {
    return checkPause(this.last, action, this.o.clock.now(), this.maxAgeMs());
  }

  /** reading — the last answer (or why there is none). */
  reading(): PauseReading {
    return this.last;
  }

  /** refresh — asks the owner now (one ask at a time: callers during one share it). Never throws. */
  refresh(): Promise<PauseReading> {
    this.inFlight ??= this.ask().finally(() => (this.inFlight = undefined));
    // Any answer is a first answer: `check` does not ask again for one it already has.
    this.first ??= this.inFlight;
    return this.inFlight;
  }

  /** onChange — called when the reading changes: paused, resumed, changed, unknown, known again. */
  onChange(listener: (r: PauseReading) => void): void {
    this.listeners.push(listener);
  }

  onApplicationBootstrap(): void {
    this.tick();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** tick — asks now, then again one interval later, on the Clock (a FakeClock's step drives it in tests). */
  private tick(): Promise<unknown> {
    if (this.stopped) return Promise.resolve();
    const asked = this.refresh();
    this.first ??= asked;
    this.timer = this.o.clock.setTimer(this.o.intervalMs, () => this.tick());
    return asked;
  }

  private maxAgeMs(): number {
    return 3 * this.o.intervalMs;
  }

  private known(): boolean {
    return this.last.known && this.o.clock.now().getTime() - this.last.readAt.getTime() <= this.maxAgeMs();
  }

  private pauseNow(): ActivePause | null {
    return this.last.known ? pauseInForce(this.last.pause, this.o.clock.now()) : null;
  }

  private async ask(): Promise<PauseReading> {
    let next: PauseReading;
    try {
      const view = await this.o.source();
      next = { known: true, pause: view.pause, readAt: this.o.clock.now() };
    } catch (err) {
      const coded = CodedError.from(err);
      next = { known: false, detail: `${PAUSE_OWNER} not answering: ${coded.code === 'INTERNAL' ? 'internal error' : coded.message}`, since: this.last.known ? this.o.clock.now() : this.last.since };
    }
    this.last = next;
    this.changed(next);
    return next;
  }

  /** changed — logs and tells the listeners when what the gate knows changes (not on every identical answer). */
  private changed(r: PauseReading): void {
    const p = r.known ? pauseInForce(r.pause, this.o.clock.now()) : null;
    const key = !r.known ? 'unknown' : p ? JSON.stringify(p) : 'running';
    if (key === this.lastKey) return;
    const first = this.lastKey === '';
    this.lastKey = key;
    if (!r.known) this.o.logger.warn('pause state unknown: disruptive actions held', { reason: r.detail });
    else if (p) this.o.logger.warn('disruptive actions paused', { reason: p.reason, actor: p.pausedBy, until: p.until, scope: p.scope });
    else if (!first) this.o.logger.info('disruptive actions allowed again');
    for (const l of this.listeners) {
      try {
        l(r);
      } catch (err) {
        this.o.logger.warn('pause listener failed', { err: (err as Error).message });
      }
    }
  }
}

/** commandPauseSource — the owner's answer to `pause.get`, over the command bus (every service but the owner). */
export const commandPauseSource =
  (bus: CommandBus, service: ServiceName): PauseSource =>
  () =>
    bus.send(Commands.pauseGet, {}, newMeta(`system:${service}`));

/**
 * pauseGateProviders — `PAUSE_GATE` for a service module that imports `PlatformModule.forService` and
 * `commandBusProviders`: the gate asks the owner every SCAN_INTERVAL_SECONDS. The owner itself wires its gate on its
 * own table instead (`pauseOwnerProviders`).
 */
export function pauseGateProviders(service: ServiceName): Provider[] {
  return [
    {
      provide: PAUSE_GATE,
      inject: [RUNTIME, SERVICE_CONFIG, LOGGER, COMMAND_BUS],
      useFactory: (rt: Runtime, config: { SCAN_INTERVAL_SECONDS: number }, logger: JsonLogger, bus: CommandBus) =>
        new PauseGate({
          service,
          source: commandPauseSource(bus, service),
          clock: rt.clock,
          logger,
          intervalMs: config.SCAN_INTERVAL_SECONDS * 1000,
          metrics: rt.metrics,
          health: rt.health,
        }),
    },
  ];
}
