import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Steering's status (docs/steering.md#status): one row, the last pass of the steering leader — its mode, how it ended
 * (decided, or waiting for a service it reads, and why), when, and its recommendations — so `steering.status` answers
 * the same from every replica.
 */
export class KarpenterGatewaySteeringStatus1766000000000 implements MigrationInterface {
  name = 'KarpenterGatewaySteeringStatus1766000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE nodes.steering_status (id text PRIMARY KEY, mode text NOT NULL, state text NOT NULL, waiting text, passed_at timestamptz NOT NULL, decided_at timestamptz, recommendations jsonb NOT NULL)`,
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.steering_status`);
  }
}
