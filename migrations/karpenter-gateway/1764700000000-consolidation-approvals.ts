import type { MigrationInterface, QueryRunner } from 'typeorm';
import { approvalsDdl } from '@nodes-manager/platform';

/** karpenter-gateway's approvals of NodePool consolidations (docs/approvals.md). */
export class KarpenterGatewayConsolidationApprovals1764700000000 implements MigrationInterface {
  name = 'KarpenterGatewayConsolidationApprovals1764700000000';
  async up(q: QueryRunner): Promise<void> {
    for (const s of approvalsDdl('consolidation_approvals').up) await q.query(s);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const s of approvalsDdl('consolidation_approvals').down) await q.query(s);
  }
}
