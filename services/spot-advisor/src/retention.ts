import type { RetentionSpec } from '@nodes-manager/platform';

/** spot-advisor's tables and how long each keeps its rows (docs/retention.md). */
export const spotAdvisorRetention: RetentionSpec = {
  service: 'spot-advisor',
  rules: [
    {
      table: 'spot_price_samples',
      column: 'sampled_at',
      variable: 'RETENTION_SPOT_PRICE_SAMPLES_DAYS',
      dflt: 14,
      holds: 'Spot price history',
      outlives: ['SPOT_PRICE_WINDOW_HOURS'],
    },
    {
      table: 'provisioning_requests',
      column: 'created_at',
      variable: 'RETENTION_PROVISIONING_REQUESTS_DAYS',
      dflt: 30,
      holds: 'on-demand launches by client token (a token replays its launch while its row is kept)',
      keep: { sql: `t.status = 'pending'`, why: 'a launch still pending' },
    },
  ],
  bounded: [],
};
