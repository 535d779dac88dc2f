import { Column, Entity, PrimaryColumn } from 'typeorm';
import { approvalEntity } from '@nodes-manager/platform';

/** SchedulingDecisionEntity — `nodes.scheduling_decisions`: the decision log, each with its rationale. */
@Entity({ schema: 'nodes', name: 'scheduling_decisions' })
export class SchedulingDecisionEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text' }) kind!: string;
  @Column({ type: 'text' }) subject!: string;
  @Column({ type: 'text' }) outcome!: string;
  @Column({ type: 'text' }) reason!: string;
  @Column({ type: 'text' }) rationale!: string;
  @Column({ type: 'double precision', nullable: true }) score!: number | null;
  @Column({ type: 'jsonb' }) details!: Record<string, unknown>;
  @Column({ type: 'text' }) actor!: string;
  @Column({ type: 'text', name: 'correlation_id', nullable: true }) correlationId!: string | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
}

/** ConsolidationPlanEntity — `nodes.consolidation_plans`: each plan with its savings and what became of it. */
@Entity({ schema: 'nodes', name: 'consolidation_plans' })
export class ConsolidationPlanEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'text', name: 'node_pool', nullable: true }) nodePool!: string | null;
  @Column({ type: 'jsonb' }) plan!: Record<string, unknown>;
  @Column({ type: 'double precision', name: 'hourly_savings_usd' }) hourlySavingsUsd!: number;
  @Column({ type: 'double precision', name: 'monthly_savings_usd' }) monthlySavingsUsd!: number;
  @Column({ type: 'boolean', name: 'dry_run' }) dryRun!: boolean;
  @Column({ type: 'text' }) actor!: string;
  @Column({ type: 'text', name: 'correlation_id', nullable: true }) correlationId!: string | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'executed_at', nullable: true }) executedAt!: Date | null;
}

/** OPTIMIZE_APPROVALS — `nodes.optimize_approvals`: approvals of optimizer drains (docs/approvals.md). */
export const OPTIMIZE_APPROVALS = 'optimize_approvals';

export const entities = [SchedulingDecisionEntity, ConsolidationPlanEntity, approvalEntity(OPTIMIZE_APPROVALS)];
