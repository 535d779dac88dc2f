import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The outbox relay's claim on a batch, so a lost database connection after a confirm republishes nothing. */
export class SpotAdvisorOutboxClaims1764950000000 implements MigrationInterface {
  name = 'SpotAdvisorOutboxClaims1764950000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes.outbox_spot_advisor ADD COLUMN claimed_by text, ADD COLUMN claimed_until timestamptz`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes.outbox_spot_advisor DROP COLUMN claimed_until, DROP COLUMN claimed_by`);
  }
}
