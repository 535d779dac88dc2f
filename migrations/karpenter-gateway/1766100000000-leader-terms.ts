import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The leader's terms (docs/leader-election.md#terms): one row per leader lock, its term bumped by each process that
 * takes the lock, and checked first in every write a reconcile makes, so a deposed leader's writes are refused.
 * Shared by every service that elects a leader (IF NOT EXISTS: whichever migrates first creates it); `down` leaves it
 * to the others.
 */
export class KarpenterGatewayLeaderTerms1766100000000 implements MigrationInterface {
  name = 'KarpenterGatewayLeaderTerms1766100000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE IF NOT EXISTS nodes.leader_terms (name text PRIMARY KEY, term bigint NOT NULL, since timestamptz NOT NULL)`);
  }
  async down(): Promise<void> {}
}
