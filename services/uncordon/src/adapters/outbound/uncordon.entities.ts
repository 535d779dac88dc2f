import { Column, Entity, PrimaryColumn } from 'typeorm';
import { approvalEntity } from '@nodes-manager/platform';
import { RebalanceLedgerEntity } from '../../rebalance-ledger/rebalance-ledger.repository.js';
import { SpotInterruptionEntity } from '../../rebalance-ledger/spot-interruptions.repository.js';

/** ScalingEventEntity — `nodes.scaling_events`: every action on a node, with its evidence and its actor. */
@Entity({ schema: 'nodes', name: 'scaling_events' })
export class ScalingEventEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'text' }) action!: string;
  @Column({ type: 'text', nullable: true }) decision!: string | null;
  @Column({ type: 'text' }) reason!: string;
  @Column({ type: 'text' }) actor!: string;
  @Column({ type: 'text', name: 'correlation_id', nullable: true }) correlationId!: string | null;
  @Column({ type: 'uuid', name: 'operation_id', nullable: true }) operationId!: string | null;
  @Column({ type: 'boolean', name: 'dry_run' }) dryRun!: boolean;
  @Column({ type: 'jsonb' }) evidence!: Record<string, unknown>;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
}

/** CordonObservationEntity — `nodes.cordon_observations`: when we first saw each cordon, kept across restarts. */
@Entity({ schema: 'nodes', name: 'cordon_observations' })
export class CordonObservationEntity {
  @PrimaryColumn({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'text', name: 'node_uid' }) nodeUid!: string;
  @Column({ type: 'timestamptz', name: 'first_seen_cordoned_at' }) firstSeenCordonedAt!: Date;
  @Column({ type: 'timestamptz', name: 'last_evaluated_at', nullable: true }) lastEvaluatedAt!: Date | null;
  @Column({ type: 'jsonb', nullable: true }) verdict!: Record<string, unknown> | null;
  /** An uncordon about to be patched, recorded first so that a patch whose record failed is recorded later. */
  @Column({ type: 'jsonb', name: 'pending_uncordon', nullable: true }) pendingUncordon!: Record<string, unknown> | null;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt!: Date;
}

/** DrainOperationEntity — `nodes.drain_operations`: one drain, its progress and its final result. */
@Entity({ schema: 'nodes', name: 'drain_operations' })
export class DrainOperationEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'text' }) actor!: string;
  @Column({ type: 'text', name: 'correlation_id', nullable: true }) correlationId!: string | null;
  @Column({ type: 'jsonb' }) options!: Record<string, unknown>;
  @Column({ type: 'jsonb' }) progress!: Record<string, unknown>;
  /** The drain's state between its steps (plan, pods, last answers, term): see DrainRowState. */
  @Column({ type: 'jsonb', nullable: true }) state!: Record<string, unknown> | null;
  @Column({ type: 'text', nullable: true }) reason!: string | null;
  @Column({ type: 'timestamptz', name: 'started_at' }) startedAt!: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt!: Date;
  @Column({ type: 'timestamptz', name: 'finished_at', nullable: true }) finishedAt!: Date | null;
}

/** FencingOperationEntity — `nodes.fencing_operations`: one fence of one node object, its steps and result. */
@Entity({ schema: 'nodes', name: 'fencing_operations' })
export class FencingOperationEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'text', name: 'node_uid' }) nodeUid!: string;
  @Column({ type: 'text', name: 'instance_id' }) instanceId!: string;
  @Column({ type: 'text', nullable: true }) zone!: string | null;
  @Column({ type: 'text' }) action!: string;
  @Column({ type: 'boolean', name: 'dry_run' }) dryRun!: boolean;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'text', nullable: true }) reason!: string | null;
  @Column({ type: 'text', nullable: true }) message!: string | null;
  @Column({ type: 'text', name: 'instance_state', nullable: true }) instanceState!: string | null;
  @Column({ type: 'integer', name: 'pods_deleted' }) podsDeleted!: number;
  @Column({ type: 'text' }) actor!: string;
  @Column({ type: 'jsonb' }) steps!: unknown[];
  @Column({ type: 'jsonb' }) evidence!: Record<string, unknown>;
  @Column({ type: 'timestamptz', name: 'started_at' }) startedAt!: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt!: Date;
  @Column({ type: 'timestamptz', name: 'finished_at', nullable: true }) finishedAt!: Date | null;
}

/** FencingVerdictEntity — `nodes.fencing_verdicts`: the latest verdict of each node that is not Ready. */
@Entity({ schema: 'nodes', name: 'fencing_verdicts' })
export class FencingVerdictEntity {
  @PrimaryColumn({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'jsonb' }) verdict!: Record<string, unknown>;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt!: Date;
}

/** FencingStateEntity — `nodes.fencing_state`: the last partition shares and whether fencing is suspended. */
@Entity({ schema: 'nodes', name: 'fencing_state' })
export class FencingStateEntity {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ type: 'boolean' }) suspended!: boolean;
  @Column({ type: 'jsonb' }) shares!: Record<string, unknown>;
  @Column({ type: 'timestamptz', name: 'evaluated_at' }) evaluatedAt!: Date;
}

/** NodePressureEntity — `nodes.node_pressure`: the last PSI reading of each node opted in to pressure watching. */
@Entity({ schema: 'nodes', name: 'node_pressure' })
export class NodePressureEntity {
  @PrimaryColumn({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'text' }) mode!: string;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'jsonb', nullable: true }) cpu!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) memory!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) io!: Record<string, unknown> | null;
  @Column({ type: 'integer', name: 'high_samples' }) highSamples!: number;
  @Column({ type: 'timestamptz', name: 'sampled_at' }) sampledAt!: Date;
  @Column({ type: 'jsonb', name: 'last_relief', nullable: true }) lastRelief!: Record<string, unknown> | null;
}

/** FENCE_APPROVALS_TABLE — `nodes.fence_approvals`: fences waiting for (or carried out after) an approval (docs/approvals.md). */
export const FENCE_APPROVALS_TABLE = 'fence_approvals';
/** DRAIN_APPROVALS_TABLE — `nodes.drain_approvals`: the records of manual drains, the operator their approver. */
export const DRAIN_APPROVALS_TABLE = 'drain_approvals';

export const entities = [
  approvalEntity(FENCE_APPROVALS_TABLE),
  approvalEntity(DRAIN_APPROVALS_TABLE),
  ScalingEventEntity,
  CordonObservationEntity,
  DrainOperationEntity,
  FencingOperationEntity,
  FencingVerdictEntity,
  FencingStateEntity,
  NodePressureEntity,
  RebalanceLedgerEntity,
  SpotInterruptionEntity,
];
