import { approvalsDdl, ddlMigration } from '@nodes-manager/platform';

/** karpenter-gateway's approvals of NodePool consolidations (docs/approvals.md). */
export const KarpenterGatewayConsolidationApprovals1764700000000 = ddlMigration('KarpenterGatewayConsolidationApprovals1764700000000', approvalsDdl('consolidation_approvals'));
