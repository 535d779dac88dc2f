import { Column, Entity, PrimaryColumn } from 'typeorm';

/** NodeEntity — `nodes.nodes`, one row per node ever seen (deleted nodes kept, `deleted_at` set). */
@Entity({ schema: 'nodes', name: 'nodes' })
export class NodeEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) uid!: string;
  @Column({ type: 'text', name: 'provider_id', nullable: true }) providerId!: string | null;
  @Column({ type: 'text', name: 'instance_id', nullable: true }) instanceId!: string | null;
  @Column({ type: 'text', name: 'instance_type', nullable: true }) instanceType!: string | null;
  @Column({ type: 'text', nullable: true }) zone!: string | null;
  @Column({ type: 'text', name: 'capacity_type', nullable: true }) capacityType!: string | null;
  @Column({ type: 'text', name: 'node_pool', nullable: true }) nodePool!: string | null;
  @Column({ type: 'boolean' }) ready!: boolean;
  @Column({ type: 'boolean' }) unschedulable!: boolean;
  @Column({ type: 'text' }) state!: string;
  @Column({ type: 'jsonb' }) taints!: unknown[];
  @Column({ type: 'jsonb' }) labels!: Record<string, string>;
  @Column({ type: 'jsonb' }) annotations!: Record<string, string>;
  @Column({ type: 'jsonb' }) conditions!: unknown[];
  @Column({ type: 'bigint', name: 'alloc_cpu_milli' }) allocCpuMilli!: string;
  @Column({ type: 'bigint', name: 'alloc_memory_bytes' }) allocMemoryBytes!: string;
  @Column({ type: 'integer', name: 'alloc_gpu' }) allocGpu!: number;
  @Column({ type: 'integer', name: 'alloc_pods' }) allocPods!: number;
  @Column({ type: 'bigint', name: 'req_cpu_milli' }) reqCpuMilli!: string;
  @Column({ type: 'bigint', name: 'req_memory_bytes' }) reqMemoryBytes!: string;
  @Column({ type: 'integer', name: 'req_gpu' }) reqGpu!: number;
  @Column({ type: 'integer', name: 'pod_count' }) podCount!: number;
  @Column({ type: 'text', name: 'content_hash' }) contentHash!: string;
  @Column({ type: 'text', name: 'resource_version', nullable: true }) resourceVersion!: string | null;
  @Column({ type: 'timestamptz', name: 'k8s_created_at', nullable: true }) k8sCreatedAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'first_seen_at' }) firstSeenAt!: Date;
  @Column({ type: 'timestamptz', name: 'last_seen_at' }) lastSeenAt!: Date;
  @Column({ type: 'timestamptz', name: 'changed_at' }) changedAt!: Date;
  @Column({ type: 'timestamptz', name: 'deleted_at', nullable: true }) deletedAt!: Date | null;
}

/** PodEntity — `nodes.pods`, the fields nodes-manager needs of each pod (not whole objects). */
@Entity({ schema: 'nodes', name: 'pods' })
export class PodEntity {
  @PrimaryColumn({ type: 'text' }) uid!: string;
  @Column({ type: 'text' }) namespace!: string;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text', name: 'node_name', nullable: true }) nodeName!: string | null;
  @Column({ type: 'text', nullable: true }) phase!: string | null;
  @Column({ type: 'text', name: 'owner_kind', nullable: true }) ownerKind!: string | null;
  @Column({ type: 'text', name: 'owner_name', nullable: true }) ownerName!: string | null;
  @Column({ type: 'text', name: 'workload_class', nullable: true }) workloadClass!: string | null;
  @Column({ type: 'text', nullable: true }) qos!: string | null;
  @Column({ type: 'bigint', name: 'cpu_milli' }) cpuMilli!: string;
  @Column({ type: 'bigint', name: 'memory_bytes' }) memoryBytes!: string;
  @Column({ type: 'integer' }) gpu!: number;
  @Column({ type: 'boolean', name: 'has_pvc' }) hasPvc!: boolean;
  @Column({ type: 'boolean', name: 'has_local_storage' }) hasLocalStorage!: boolean;
  @Column({ type: 'boolean' }) mirror!: boolean;
  @Column({ type: 'boolean' }) daemonset!: boolean;
  @Column({ type: 'jsonb' }) labels!: Record<string, string>;
  @Column({ type: 'jsonb' }) annotations!: Record<string, string>;
  @Column({ type: 'text', name: 'content_hash' }) contentHash!: string;
  @Column({ type: 'timestamptz', name: 'k8s_created_at', nullable: true }) k8sCreatedAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'first_seen_at' }) firstSeenAt!: Date;
  @Column({ type: 'timestamptz', name: 'changed_at' }) changedAt!: Date;
  @Column({ type: 'timestamptz', name: 'deleted_at', nullable: true }) deletedAt!: Date | null;
}

/**
 * NodeLifetimeEntity — `nodes.node_lifetimes`, one row per Node object (uid): its pool and when it came (its
 * creationTimestamp) and went (when node-sync saw it gone). Node-hours per pool are summed from here (docs/node-sync.md).
 */
@Entity({ schema: 'nodes', name: 'node_lifetimes' })
export class NodeLifetimeEntity {
  @PrimaryColumn({ type: 'text' }) uid!: string;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text', name: 'instance_id', nullable: true }) instanceId!: string | null;
  @Column({ type: 'text', name: 'instance_type', nullable: true }) instanceType!: string | null;
  @Column({ type: 'text', nullable: true }) zone!: string | null;
  @Column({ type: 'text', name: 'capacity_type', nullable: true }) capacityType!: string | null;
  @Column({ type: 'text', name: 'node_pool', nullable: true }) nodePool!: string | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'deleted_at', nullable: true }) deletedAt!: Date | null;
}

export const entities = [NodeEntity, PodEntity, NodeLifetimeEntity];
