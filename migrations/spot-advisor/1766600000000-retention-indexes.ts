import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retention controller's indexes (docs/retention.md): the oldest price samples and provisioning requests are found
 * without a scan. And the leader's terms (docs/leader-election.md#terms), which its lock takes: spot-advisor elected no
 * leader before (IF NOT EXISTS, as in the other services; `down` leaves it to them).
 */
export class SpotAdvisorRetentionIndexes1766600000000 implements MigrationInterface {
  name = 'SpotAdvisorRetentionIndexes1766600000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX spot_price_samples_sampled ON nodes.spot_price_samples (sampled_at)`);
    await q.query(`CREATE INDEX provisioning_requests_created ON nodes.provisioning_requests (created_at)`);
    await q.query(`CREATE TABLE IF NOT EXISTS nodes.leader_terms (name text PRIMARY KEY, term bigint NOT NULL, since timestamptz NOT NULL)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX nodes.spot_price_samples_sampled`);
    await q.query(`DROP INDEX nodes.provisioning_requests_created`);
  }
}
