import type { MigrationInterface, QueryRunner } from 'typeorm';
import { approvalsDdl } from '@nodes-manager/platform';

/** scheduler-scoring's approvals of optimizer drains (docs/approvals.md). */
export class SchedulerScoringOptimizeApprovals1764700000000 implements MigrationInterface {
  name = 'SchedulerScoringOptimizeApprovals1764700000000';
  async up(q: QueryRunner): Promise<void> {
    for (const s of approvalsDdl('optimize_approvals').up) await q.query(s);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const s of approvalsDdl('optimize_approvals').down) await q.query(s);
  }
}
