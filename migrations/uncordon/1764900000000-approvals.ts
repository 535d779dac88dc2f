import type { MigrationInterface, QueryRunner } from 'typeorm';
import { approvalsDdl } from '@nodes-manager/platform';

/** uncordon's approvals: of fences (DISRUPTION_APPROVAL for `fence`) and the records of manual drains (docs/approvals.md). */
export class UncordonApprovals1764900000000 implements MigrationInterface {
  name = 'UncordonApprovals1764900000000';
  async up(q: QueryRunner): Promise<void> {
    for (const s of [...approvalsDdl('fence_approvals').up, ...approvalsDdl('drain_approvals').up]) await q.query(s);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const s of [...approvalsDdl('drain_approvals').down, ...approvalsDdl('fence_approvals').down]) await q.query(s);
  }
}
