import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the inbox of the event subscriber every service once had: no service consumes events from the bus (the
 * outbox publishes them for other teams), so the table was never written (docs/architecture.md#events).
 */
export class UncordonDropInbox1765100000000 implements MigrationInterface {
  name = 'UncordonDropInbox1765100000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.inbox_uncordon`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.inbox_uncordon (
      event_id uuid PRIMARY KEY,
      type text NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now()
    )`);
  }
}
