import { approvalsDdl, ddlMigration } from '@nodes-manager/platform';

/** scheduler-scoring's approvals of optimizer drains (docs/approvals.md). */
export const SchedulerScoringOptimizeApprovals1764700000000 = ddlMigration('SchedulerScoringOptimizeApprovals1764700000000', approvalsDdl('optimize_approvals'));
