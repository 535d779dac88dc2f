import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A drain's state between its steps (its plan, where each pod is, the answers of its last evictions, the leadership
 * term that last moved it on): each step is one reconcile that goes on from the row (docs/uncordon.md#drain). Null
 * for rows of before, which the next step plans afresh from the node's pods.
 */
export class UncordonDrainState1765300000000 implements MigrationInterface {
  name = 'UncordonDrainState1765300000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes.drain_operations ADD COLUMN state jsonb`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes.drain_operations DROP COLUMN state`);
  }
}
