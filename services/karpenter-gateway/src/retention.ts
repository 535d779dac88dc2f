import { approvalsRule, type RetentionSpec } from '@nodes-manager/platform';

/** karpenter-gateway's tables and how long each keeps its rows (docs/retention.md). */
export const karpenterGatewayRetention: RetentionSpec = {
  service: 'karpenter-gateway',
  rules: [
    { table: 'nodepool_changes', column: 'created_at', variable: 'RETENTION_NODEPOOL_CHANGES_DAYS', dflt: 90, holds: 'every NodePool change with who asked for it' },
    { table: 'pool_health_transitions', column: 'at', variable: 'RETENTION_POOL_HEALTH_TRANSITIONS_DAYS', dflt: 30, holds: "each Spot pool's health changes" },
    approvalsRule('consolidation_approvals'),
    approvalsRule('steer_approvals'),
  ],
  bounded: [
    { table: 'pool_health', why: 'one row per Spot pool (instance type × zone)' },
    { table: 'nodepool_steering', why: 'one row per NodePool steering wrote to' },
    { table: 'steering_plans', why: "one row per NodePool: each pass replaces the pool's plan" },
    { table: 'steering_status', why: "one row: the steering leader's last pass" },
  ],
};
