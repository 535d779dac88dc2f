import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** SpotPriceSampleEntity — `nodes.spot_price_samples`: every Spot price point fetched, for history. */
@Entity({ schema: 'nodes', name: 'spot_price_samples' })
export class SpotPriceSampleEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id!: string;
  @Column({ type: 'text' }) region!: string;
  @Column({ type: 'text', name: 'instance_type' }) instanceType!: string;
  @Column({ type: 'text' }) zone!: string;
  @Column({ type: 'text', name: 'product_description' }) productDescription!: string;
  @Column({ type: 'double precision', name: 'price_usd' }) priceUsd!: number;
  @Column({ type: 'timestamptz', name: 'sampled_at' }) sampledAt!: Date;
  @Column({ type: 'timestamptz', name: 'fetched_at' }) fetchedAt!: Date;
}

/**
 * ProvisioningRequestEntity — `nodes.provisioning_requests`: one launch per client token (unique where not a dry
 * run), so retries start nothing twice and get the recorded `result` back; dry runs are recorded too.
 */
@Entity({ schema: 'nodes', name: 'provisioning_requests' })
export class ProvisioningRequestEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text', name: 'client_token' }) clientToken!: string;
  @Column({ type: 'text' }) actor!: string;
  @Column({ type: 'text', name: 'correlation_id', nullable: true }) correlationId!: string | null;
  @Column({ type: 'jsonb' }) request!: Record<string, unknown>;
  @Column({ type: 'boolean', name: 'dry_run' }) dryRun!: boolean;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'text', name: 'instance_ids', array: true }) instanceIds!: string[];
  @Column({ type: 'jsonb', nullable: true }) result!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) error!: Record<string, unknown> | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt!: Date;
}

export const entities = [SpotPriceSampleEntity, ProvisioningRequestEntity];
