import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@nodes-manager/platform';
import { testEnv } from '@nodes-manager/platform/testing';
import { loadUncordonConfig } from './config.js';

const load = (overrides: Record<string, string>) => () => loadUncordonConfig(testEnv('postgres://localhost/x', overrides));

describe("uncordon's retention configuration (docs/retention.md)", () => {
  it('keeps the ledger 60 days by default, longer than both windows that read it', () => {
    const c = load({})();
    expect(c['RETENTION_REBALANCE_LEDGER_DAYS' as keyof typeof c]).toBe(60);
  });

  it.each([
    ['shorter than STEERING_WINDOW_HOURS', { RETENTION_REBALANCE_LEDGER_DAYS: '31', STEERING_WINDOW_HOURS: '800' }],
    ['shorter than REBALANCE_FIGURES_DAYS', { RETENTION_REBALANCE_LEDGER_DAYS: '20' }],
    ['shorter than both', { RETENTION_REBALANCE_LEDGER_DAYS: '5' }],
  ])('refuses a ledger kept %s, naming the retention and both windows', (_, overrides) => {
    expect(load(overrides)).toThrow(ConfigError);
    expect(load(overrides)).toThrow(/RETENTION_REBALANCE_LEDGER_DAYS: keeps rebalance_ledger .* must be at least STEERING_WINDOW_HOURS .* and REBALANCE_FIGURES_DAYS/);
  });

  it('accepts a ledger kept exactly as long as the longer window', () => {
    expect(load({ RETENTION_REBALANCE_LEDGER_DAYS: '30' })).not.toThrow();
  });

  it.each([
    ['not a number', { RETENTION_SCALING_EVENTS_DAYS: 'a month' }, /RETENTION_SCALING_EVENTS_DAYS: must be a number/],
    ['below a day', { RETENTION_DRAINS_DAYS: '0' }, /RETENTION_DRAINS_DAYS: must be at least 1/],
    ['a batch too small', { RETENTION_BATCH_SIZE: '1' }, /RETENTION_BATCH_SIZE: must be at least 10/],
  ])('refuses a retention variable that is %s, naming it', (_, overrides, message) => {
    expect(load(overrides)).toThrow(message);
  });
});
