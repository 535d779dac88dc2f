import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@nodes-manager/platform';
import { DAY_MS, startRetention, testEnv, type RetentionHarness } from '@nodes-manager/platform/testing';
import { migrations } from '../../../migrations/spot-advisor/index.js';
import { entities } from '../src/adapters/outbound/spot-advisor.entities.js';
import { loadSpotAdvisorConfig } from '../src/config.js';
import { spotAdvisorRetention } from '../src/retention.js';

/** spot-advisor's retention on its migrated schema (docs/retention.md): price samples after 14 days, settled launches after 30. */
const config = loadSpotAdvisorConfig(testEnv('postgres://unused/x'));
let h: RetentionHarness;

beforeAll(async () => {
  h = await startRetention({ service: 'spot-advisor', entities, migrations, spec: spotAdvisorRetention, config });
});
afterAll(async () => {
  await h?.stop();
});

describe('spot-advisor retention', () => {
  it("every rule's time column leads an index", async () => {
    expect(await h.unindexed()).toEqual([]);
  });

  it('refuses price samples kept shorter than SPOT_PRICE_WINDOW_HOURS, naming both', () => {
    const load = () => loadSpotAdvisorConfig(testEnv('postgres://unused/x', { RETENTION_SPOT_PRICE_SAMPLES_DAYS: '3' }));
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/RETENTION_SPOT_PRICE_SAMPLES_DAYS: .* must be at least SPOT_PRICE_WINDOW_HOURS \(168 = 7 days\)/);
  });

  it('deletes samples and settled launches past their retention, keeping a pending launch', async () => {
    await h.row('spot_price_samples', { instance_type: 'm5.large', sampled_at: h.daysAgo(1) });
    await h.row('spot_price_samples', { instance_type: 'c5.large' });
    await h.row('provisioning_requests', { client_token: 'succeeded', status: 'succeeded', dry_run: false });
    await h.row('provisioning_requests', { client_token: 'pending', status: 'pending', dry_run: false });

    await h.stepPast(13 * DAY_MS + 60_000);
    expect(await h.left('spot_price_samples', 'instance_type')).toEqual(['c5.large']);
    await h.stepPast(DAY_MS);
    expect(await h.left('spot_price_samples', 'instance_type')).toEqual([]);
    await h.stepPast(16 * DAY_MS);
    expect(await h.left('provisioning_requests', 'client_token')).toEqual(['pending']);
    expect([await h.deleted('spot_price_samples'), await h.deleted('provisioning_requests')]).toEqual([2, 1]);
  });
});
