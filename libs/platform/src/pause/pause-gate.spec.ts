import { describe, expect, it } from '@jest/globals';
import type { ActivePause } from '@nodes-manager/contracts';
import { FakeClock } from '../clock/fake-clock.js';
import { CodedError } from '../errors/coded-error.js';
import { HealthRegistry } from '../health/health.js';
import { Metrics } from '../health/metrics.js';
import { JsonLogger } from '../logging/logger.js';
import { PauseGate, REASK_WAIT_MS } from './pause-gate.js';

const pause: ActivePause = { reason: 'bad rollout', scope: 'disruptive', pausedBy: 'alice', pausedAt: '2026-01-01T00:00:00.000Z', until: '2026-01-01T00:10:00.000Z', source: 'api' };

/** An owner's answer that never comes (an ask that hangs). */
const HANG = Symbol('hang');

/** aGate — a gate whose owner answers what `answers` holds next (a pause, none, an error, or never: HANG). */
function aGate() {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const answers: (ActivePause | null | Error | typeof HANG)[] = [];
  const health = new HealthRegistry();
  const metrics = new Metrics();
  let asked = 0;
  const gate = new PauseGate({
    service: 'scheduler-scoring',
    source: async () => {
      asked++;
      const a = answers.shift();
      if (a === HANG) return new Promise<never>(() => undefined);
      if (a instanceof Error) throw a;
      return { pause: a ?? null };
    },
    clock,
    logger: new JsonLogger('scheduler-scoring', 'error'),
    intervalMs: 30_000,
    metrics,
    health,
  });
  return { gate, clock, answers, health, metrics, asked: () => asked };
}

describe('PauseGate', () => {
  it('holds everything until the owner first answers, then follows its answers', async () => {
    const { gate, answers, asked } = aGate();
    expect(gate.reading()).toMatchObject({ known: false });
    answers.push(null);
    expect(await gate.check('optimize')).toEqual({ go: true });
    answers.push(pause);
    await gate.refresh();
    expect(await gate.check('optimize')).toMatchObject({ go: false, reason: 'paused', pause });
    expect(await gate.check('uncordon')).toEqual({ go: true });
    expect(asked()).toBe(2);
  });

  it('a failed ask makes the state unknown at once, and unknown holds', async () => {
    const { gate, answers } = aGate();
    answers.push(null, new CodedError('SERVICE_UNAVAILABLE', 'uncordon is not running'), new CodedError('SERVICE_UNAVAILABLE', 'uncordon is not running'));
    await gate.refresh();
    await gate.refresh();
    expect(await gate.check('fence')).toMatchObject({ go: false, reason: 'pause_unknown', detail: expect.stringContaining('uncordon is not running') });
  });

  it('check asks again while the state is unknown, so an owner that was not consuming yet holds nothing once it answers', async () => {
    const { gate, answers, asked } = aGate();
    answers.push(new CodedError('SERVICE_UNAVAILABLE', 'uncordon is not running (no consumer on uncordon)'));
    // The start's ask (the one check waits for), answered before the owner consumes.
    gate.onApplicationBootstrap();
    await gate.refresh();
    expect(asked()).toBe(1);
    expect(gate.reading()).toMatchObject({ known: false });
    answers.push(null);
    expect(await gate.check('consolidate')).toEqual({ go: true });
    expect(asked()).toBe(2);
    // Known: no more asks.
    expect(await gate.check('consolidate')).toEqual({ go: true });
    expect(asked()).toBe(2);
    // Still not answering: held, and said why.
    answers.push(new CodedError('SERVICE_UNAVAILABLE', 'uncordon is not running'));
    await gate.refresh();
    answers.push(new CodedError('SERVICE_UNAVAILABLE', 'uncordon is not running'));
    expect(await gate.check('consolidate')).toMatchObject({ go: false, reason: 'pause_unknown', detail: expect.stringContaining('uncordon is not running') });
    expect(asked()).toBe(4);
  });

  it('check waits for a hanging owner no longer than REASK_WAIT_MS, then holds the action as unknown', async () => {
    const { gate, answers, clock } = aGate();
    answers.push(new CodedError('SERVICE_UNAVAILABLE', 'uncordon is not running'), HANG);
    gate.onApplicationBootstrap();
    await gate.refresh();
    let answer: unknown;
    void gate.check('consolidate').then((a) => (answer = a));
    await clock.step(REASK_WAIT_MS - 1);
    expect(answer).toBeUndefined();
    await clock.step(1);
    expect(answer).toMatchObject({ go: false, reason: 'pause_unknown' });
    gate.onApplicationShutdown();
  });

  it('a pause ends at its until on the gate\'s own clock, without asking again', async () => {
    const { gate, answers, clock, asked } = aGate();
    answers.push({ ...pause, until: '2026-01-01T00:01:00.000Z' });
    await gate.refresh();
    clock.advance(59_999);
    expect((await gate.check('fence')).go).toBe(false);
    clock.advance(1);
    expect((await gate.check('fence')).go).toBe(true);
    expect(asked()).toBe(1);
  });

  it('a reading three intervals old counts as unknown (asks that hang)', async () => {
    const { gate, answers, clock, metrics } = aGate();
    answers.push(null);
    await gate.refresh();
    clock.advance(90_000);
    expect((await gate.check('drain')).go).toBe(true);
    clock.advance(1);
    expect(await metrics.registry.metrics()).toContain('nodes_manager_disruptions_pause_unknown{service="scheduler-scoring"} 1');
    // Unknown: asked again before deciding; still not answering, the drain is held.
    answers.push(new CodedError('TIMEOUT', 'no answer'));
    expect(await gate.check('drain')).toMatchObject({ go: false, reason: 'pause_unknown' });
  });

  it('says so in readiness (degraded, not unready) and in the metrics', async () => {
    const { gate, answers, health, metrics } = aGate();
    answers.push(pause);
    await gate.refresh();
    const r = await health.run();
    expect(r).toMatchObject({ ready: true, degraded: true, reason: 'degraded: pause' });
    expect(r.checks['scheduler-scoring.pause']!.detail).toContain('paused by alice');
    const text = await metrics.registry.metrics();
    expect(text).toContain('nodes_manager_disruptions_paused{service="scheduler-scoring"} 1');
    expect(text).toContain('nodes_manager_disruptions_pause_unknown{service="scheduler-scoring"} 0');
  });

  it('tells listeners about changes only, and a fresh check asks first', async () => {
    const { gate, answers } = aGate();
    const seen: boolean[] = [];
    gate.onChange((r) => seen.push(r.known && r.pause !== null));
    answers.push(null, null, pause);
    await gate.refresh();
    await gate.refresh();
    expect(await gate.check('steer', { fresh: true })).toMatchObject({ go: false, reason: 'paused' });
    expect(seen).toEqual([false, true]);
  });
});
