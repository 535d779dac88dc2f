import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context (`traceparent`, `tracestate`) of the span that wrote an outbox row, so the relay's publish
 * span links to the transaction that wrote the event (docs/observability.md). NULL when tracing is off or the write
 * was not part of a trace.
 */
export class SchedulerScoringOutboxTraceContext1765500000000 implements MigrationInterface {
  name = 'SchedulerScoringOutboxTraceContext1765500000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes.outbox_scheduler_scoring ADD COLUMN trace_context jsonb`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes.outbox_scheduler_scoring DROP COLUMN trace_context`);
  }
}
