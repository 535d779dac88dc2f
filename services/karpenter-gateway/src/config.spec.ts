import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@nodes-manager/platform';
import { loadKarpenterGatewayConfig, poolHealthConfigOf } from './config.js';

const base = { DATABASE_URL: 'postgres://u@h/db', AUTH_JWT_ACCESS_SECRET: 'a-secret-of-at-least-32-characters!', SCAN_INTERVAL_SECONDS: '60' };

describe('karpenter-gateway steering configuration', () => {
  it('defaults to plan mode and the rule\'s defaults', () => {
    const c = loadKarpenterGatewayConfig(base);
    expect(c).toMatchObject({ STEERING_MODE: 'plan', STEERING_INTERVAL_SECONDS: 60, STEERING_MAX_AVOID_PER_HOUR: 3, STEERING_MAX_EXCLUDED_SHARE: 0.5, STEERING_KEEP_CHEAPEST: 3 });
    expect(poolHealthConfigOf(c)).toMatchObject({ avoidShare: 0.5, watchShare: 0.25, minSamples: 10, burstSize: 3, burstWindowMs: 300_000, coolOffMs: 21_600_000, windowMs: 604_800_000 });
  });

  it.each([
    ['an unknown mode', { STEERING_MODE: 'auto' }, /STEERING_MODE: must be one of off, plan, execute/],
    ['a watch share at or above the avoid share', { STEERING_WATCH_SHARE: '0.5' }, /STEERING_WATCH_SHARE: STEERING_WATCH_SHARE \(0\.5\) must be below STEERING_AVOID_SHARE/],
    ['a window no longer than the cool-off', { STEERING_WINDOW_HOURS: '4' }, /STEERING_WINDOW_HOURS: STEERING_WINDOW_HOURS must be longer than STEERING_COOL_OFF_HOURS/],
    ['a burst of one', { STEERING_BURST_SIZE: '1' }, /STEERING_BURST_SIZE/],
    ['a fractional count of cheapest offerings to keep', { STEERING_KEEP_CHEAPEST: '1.5' }, /STEERING_KEEP_CHEAPEST/],
    ['a negative count of cheapest offerings to keep', { STEERING_KEEP_CHEAPEST: '-1' }, /STEERING_KEEP_CHEAPEST/],
  ])('refuses to start with %s, naming the variable', (_, env, problem) => {
    let err: unknown;
    try {
      loadKarpenterGatewayConfig({ ...base, ...env });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(problem);
  });
});
