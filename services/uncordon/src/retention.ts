import { approvalsRule, type RetentionSpec } from '@nodes-manager/platform';

/** uncordon's tables and how long each keeps its rows (docs/retention.md). */
export const uncordonRetention: RetentionSpec = {
  service: 'uncordon',
  rules: [
    { table: 'scaling_events', column: 'created_at', variable: 'RETENTION_SCALING_EVENTS_DAYS', dflt: 30, holds: 'every action on a node, with its evidence and actor' },
    {
      table: 'drain_operations',
      column: 'finished_at',
      variable: 'RETENTION_DRAINS_DAYS',
      dflt: 30,
      holds: 'finished drains and their results',
      keep: { sql: `t.status IN ('pending', 'running')`, why: 'a drain still pending or running (it has no finish time)' },
    },
    {
      table: 'fencing_operations',
      column: 'finished_at',
      variable: 'RETENTION_FENCES_DAYS',
      dflt: 90,
      holds: 'finished fences and their steps',
      keep: { sql: `t.status IN ('pending', 'ec2_requested', 'confirmed', 'tainted')`, why: 'a fence still under way' },
    },
    {
      table: 'rebalance_ledger',
      column: 'seen_at',
      variable: 'RETENTION_REBALANCE_LEDGER_DAYS',
      dflt: 60,
      holds: 'each rebalance recommendation and what followed',
      keep: { sql: `t.resolved_at IS NULL`, why: 'a rebalance not resolved yet (still watched)' },
      outlives: ['STEERING_WINDOW_HOURS', 'REBALANCE_FIGURES_DAYS'],
    },
    {
      table: 'spot_interruptions',
      column: 'interrupted_at',
      variable: 'RETENTION_SPOT_INTERRUPTIONS_DAYS',
      dflt: 60,
      holds: 'every Spot interruption, with or without a recommendation before it',
      outlives: ['STEERING_WINDOW_HOURS', 'REBALANCE_FIGURES_DAYS'],
    },
    approvalsRule('fence_approvals'),
    approvalsRule('drain_approvals'),
    {
      table: 'disruption_pause',
      column: 'at',
      variable: 'RETENTION_PAUSE_HISTORY_DAYS',
      dflt: 365,
      holds: 'each pause and resume of disruptive actions',
      keep: {
        sql: `t.id IN (SELECT max(id) FROM nodes.disruption_pause UNION ALL SELECT max(id) FROM nodes.disruption_pause WHERE source = 'configuration')`,
        why: 'the latest change (the pause in force) and the latest by configuration (DISRUPTION_PAUSE last applied)',
      },
    },
  ],
  bounded: [
    { table: 'cordon_observations', why: 'one row per cordoned node, deleted when the cordon ends' },
    { table: 'fencing_verdicts', why: 'one row per opted-in node, replaced at each evaluation' },
    { table: 'fencing_state', why: 'one row' },
    { table: 'node_pressure', why: 'one row per opted-in node, deleted when it stops opting in or is gone' },
  ],
};
