import { approvalsDdl, ddlMigration } from '@nodes-manager/platform';

/** uncordon's approvals: of fences (DISRUPTION_APPROVAL for `fence`) and the records of manual drains (docs/approvals.md). */
export const UncordonApprovals1764900000000 = ddlMigration('UncordonApprovals1764900000000', approvalsDdl('fence_approvals'), approvalsDdl('drain_approvals'));
