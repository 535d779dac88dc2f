import { approvalEntity } from '@nodes-manager/platform';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { steeringEntities } from './steering.entities.js';

/** NodePoolChangeEntity — `nodes.nodepool_changes`: every NodePool change and who asked for it. */
@Entity({ schema: 'nodes', name: 'nodepool_changes' })
export class NodePoolChangeEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text', name: 'node_pool' }) nodePool!: string;
  @Column({ type: 'text' }) action!: string;
  @Column({ type: 'text' }) actor!: string;
  @Column({ type: 'text', name: 'correlation_id', nullable: true }) correlationId!: string | null;
  @Column({ type: 'boolean', name: 'dry_run' }) dryRun!: boolean;
  @Column({ type: 'jsonb' }) request!: Record<string, unknown>;
  @Column({ type: 'jsonb', nullable: true }) before!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) after!: Record<string, unknown> | null;
  @Column({ type: 'text' }) result!: string;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
}

/** CONSOLIDATION_APPROVALS_TABLE — `nodes.consolidation_approvals`: approvals of NodePool consolidations (docs/approvals.md). */
export const CONSOLIDATION_APPROVALS_TABLE = 'consolidation_approvals';

/** STEER_APPROVALS_TABLE — `nodes.steer_approvals`: approvals of steering's NodePool writes (docs/steering.md). */
export const STEER_APPROVALS_TABLE = 'steer_approvals';

export const entities = [NodePoolChangeEntity, approvalEntity(CONSOLIDATION_APPROVALS_TABLE), approvalEntity(STEER_APPROVALS_TABLE), ...steeringEntities];
