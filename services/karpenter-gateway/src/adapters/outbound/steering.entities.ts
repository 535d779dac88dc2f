import { Column, Entity, PrimaryColumn } from 'typeorm';

/** PoolHealthEntity — `nodes.pool_health`: each Spot pool's last health decision (docs/steering.md#the-rule). */
@Entity({ schema: 'nodes', name: 'pool_health' })
export class PoolHealthEntity {
  @PrimaryColumn({ type: 'text' }) pool!: string;
  @Column({ type: 'text', name: 'instance_type' }) instanceType!: string;
  @Column({ type: 'text' }) zone!: string;
  @Column({ type: 'text' }) state!: string;
  @Column({ type: 'timestamptz' }) since!: Date;
  @Column({ type: 'timestamptz', name: 'basis_from', nullable: true }) basisFrom!: Date | null;
  @Column({ type: 'text' }) reason!: string;
  @Column({ type: 'text' }) sentence!: string;
  @Column({ type: 'jsonb' }) evidence!: Record<string, unknown>;
  @Column({ type: 'timestamptz', name: 'restore_at', nullable: true }) restoreAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'decided_at' }) decidedAt!: Date;
}

/** PoolHealthTransitionEntity — `nodes.pool_health_transitions`: every change of a pool's health, with its evidence. */
@Entity({ schema: 'nodes', name: 'pool_health_transitions' })
export class PoolHealthTransitionEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text' }) pool!: string;
  @Column({ type: 'text', name: 'from_state', nullable: true }) fromState!: string | null;
  @Column({ type: 'text', name: 'to_state' }) toState!: string;
  @Column({ type: 'timestamptz' }) at!: Date;
  @Column({ type: 'text' }) reason!: string;
  @Column({ type: 'text' }) sentence!: string;
  @Column({ type: 'jsonb' }) evidence!: Record<string, unknown>;
}

/** NodePoolSteeringEntity — `nodes.nodepool_steering`: what steering wrote to a NodePool, and the owner's requirements for the undo. */
@Entity({ schema: 'nodes', name: 'nodepool_steering' })
export class NodePoolSteeringEntity {
  @PrimaryColumn({ type: 'text', name: 'node_pool' }) nodePool!: string;
  @Column({ type: 'jsonb' }) original!: unknown[];
  @Column({ type: 'jsonb' }) added!: unknown[];
  @Column({ type: 'jsonb' }) applied!: unknown[];
  @Column({ type: 'timestamptz', name: 'fallback_since', nullable: true }) fallbackSince!: Date | null;
  /** On the way back to Spot: the on-demand nodes launched during the fallback still to be replaced. */
  @Column({ type: 'jsonb', name: 'replace_nodes' }) replaceNodes!: string[];
  @Column({ type: 'text', name: 'resource_version', nullable: true }) resourceVersion!: string | null;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt!: Date;
}

/** SteeringPlanEntity — `nodes.steering_plans`: each NodePool's plan in the last pass, and what became of it. */
@Entity({ schema: 'nodes', name: 'steering_plans' })
export class SteeringPlanEntity {
  @PrimaryColumn({ type: 'text', name: 'node_pool' }) nodePool!: string;
  @Column({ type: 'text' }) mode!: string;
  @Column({ type: 'jsonb' }) plan!: Record<string, unknown>;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'text' }) detail!: string;
  @Column({ type: 'timestamptz', name: 'planned_at' }) plannedAt!: Date;
}

/** SteeringStatusEntity — `nodes.steering_status`: one row, the steering leader's last pass (docs/steering.md#status). */
@Entity({ schema: 'nodes', name: 'steering_status' })
export class SteeringStatusEntity {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ type: 'text' }) mode!: string;
  @Column({ type: 'text' }) state!: string;
  @Column({ type: 'text', nullable: true }) waiting!: string | null;
  @Column({ type: 'timestamptz', name: 'passed_at' }) passedAt!: Date;
  @Column({ type: 'timestamptz', name: 'decided_at', nullable: true }) decidedAt!: Date | null;
  @Column({ type: 'jsonb' }) recommendations!: Record<string, unknown>;
}

export const steeringEntities = [PoolHealthEntity, PoolHealthTransitionEntity, NodePoolSteeringEntity, SteeringPlanEntity, SteeringStatusEntity];
