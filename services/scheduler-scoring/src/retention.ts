import { approvalsRule, type RetentionSpec } from '@nodes-manager/platform';

/** scheduler-scoring's tables and how long each keeps its rows (docs/retention.md). */
export const schedulerScoringRetention: RetentionSpec = {
  service: 'scheduler-scoring',
  rules: [
    { table: 'scheduling_decisions', column: 'created_at', variable: 'RETENTION_SCHEDULING_DECISIONS_DAYS', dflt: 14, holds: 'the decision log (changes only)' },
    {
      table: 'consolidation_plans',
      column: 'created_at',
      variable: 'RETENTION_CONSOLIDATION_PLANS_DAYS',
      // One row per cycle with the whole plan: ≈ 750 KiB at 5,000 nodes, 1,440 a day (docs/benchmarks.md).
      dflt: 3,
      holds: 'consolidation plans (one per cycle) and their execution',
      keep: {
        sql: `EXISTS (SELECT 1 FROM nodes.optimize_approvals a WHERE a.plan_id = t.id AND a.status IN ('pending', 'approved', 'executing'))`,
        why: 'a plan an open approval references',
      },
    },
    approvalsRule('optimize_approvals'),
  ],
  bounded: [],
};
