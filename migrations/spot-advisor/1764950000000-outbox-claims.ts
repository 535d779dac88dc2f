import type { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxClaimsDdl } from '@nodes-manager/platform';

/** The outbox relay's claim on a batch, so a lost database connection after a confirm republishes nothing. */
export class SpotAdvisorOutboxClaims1764950000000 implements MigrationInterface {
  name = 'SpotAdvisorOutboxClaims1764950000000';
  async up(q: QueryRunner): Promise<void> {
    for (const s of outboxClaimsDdl('spot-advisor').up) await q.query(s);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const s of outboxClaimsDdl('spot-advisor').down) await q.query(s);
  }
}
