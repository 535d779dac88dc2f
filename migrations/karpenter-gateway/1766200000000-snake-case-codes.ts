import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The codes once spelt with hyphens, and their snake_case spelling: one casing for every code (docs/architecture.md#commands). */
const RENAMED = ['nothing-to-do', 'outside-window', 'awaiting-approval', 'dry-run'];

/**
 * Codes in one casing: a NodePool plan's status (`nothing-to-do`, `outside-window`, `awaiting-approval`), the reason a
 * steer approval's result took from it, and a NodePool change's result (`awaiting-approval`, `dry-run`) were spelt with
 * hyphens beside the snake_case reasons of the same rows (`plan_changed`, `outside_window` of a consolidation). Stored
 * rows take the snake_case spelling; the code writes only that from now on.
 */
export class KarpenterGatewaySnakeCaseCodes1766200000000 implements MigrationInterface {
  name = 'KarpenterGatewaySnakeCaseCodes1766200000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE nodes.steering_plans SET status = replace(status, '-', '_') WHERE status = ANY($1)`, [RENAMED]);
    await q.query(`UPDATE nodes.nodepool_changes SET result = replace(result, '-', '_') WHERE result = ANY($1)`, [RENAMED]);
    await q.query(
      `UPDATE nodes.steer_approvals a
          SET results = (SELECT jsonb_agg(CASE WHEN r->>'reason' = ANY($1) THEN jsonb_set(r, '{reason}', to_jsonb(replace(r->>'reason', '-', '_'))) ELSE r END ORDER BY i)
                           FROM jsonb_array_elements(a.results) WITH ORDINALITY AS e(r, i))
        WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(a.results) r WHERE r->>'reason' = ANY($1))`,
      [RENAMED],
    );
  }
  async down(q: QueryRunner): Promise<void> {
    const snake = RENAMED.map((c) => c.replace(/-/g, '_'));
    await q.query(`UPDATE nodes.steering_plans SET status = replace(status, '_', '-') WHERE status = ANY($1)`, [snake]);
    await q.query(`UPDATE nodes.nodepool_changes SET result = replace(result, '_', '-') WHERE result = ANY($1)`, [snake]);
    await q.query(
      `UPDATE nodes.steer_approvals a
          SET results = (SELECT jsonb_agg(CASE WHEN r->>'reason' = ANY($1) THEN jsonb_set(r, '{reason}', to_jsonb(replace(r->>'reason', '_', '-'))) ELSE r END ORDER BY i)
                           FROM jsonb_array_elements(a.results) WITH ORDINALITY AS e(r, i))
        WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(a.results) r WHERE r->>'reason' = ANY($1))`,
      [snake],
    );
  }
}
