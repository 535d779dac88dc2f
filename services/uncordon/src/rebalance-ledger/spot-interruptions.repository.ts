import { Column, Entity, PrimaryColumn, type DataSource } from 'typeorm';
import type { InterruptionSource, InterruptionView, RebalanceEvidence } from '@nodes-manager/contracts';
import type { InterruptionRecord } from './domain/detect-interruptions.js';
import { nodeIdentityOf } from './rebalance-ledger.repository.js';

/** SpotInterruptionEntity — `nodes.spot_interruptions`: one Spot interruption of one Node object, whatever came first. */
@Entity({ schema: 'nodes', name: 'spot_interruptions' })
export class SpotInterruptionEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'text', name: 'node_uid', unique: true }) nodeUid!: string;
  @Column({ type: 'text', name: 'instance_id', nullable: true }) instanceId!: string | null;
  @Column({ type: 'text', name: 'instance_type', nullable: true }) instanceType!: string | null;
  @Column({ type: 'text', nullable: true }) zone!: string | null;
  @Column({ type: 'text', name: 'capacity_type', nullable: true }) capacityType!: string | null;
  @Column({ type: 'text', name: 'node_pool', nullable: true }) nodePool!: string | null;
  @Column({ type: 'timestamptz', name: 'interrupted_at' }) interruptedAt!: Date;
  @Column({ type: 'text' }) source!: string;
  @Column({ type: 'uuid', name: 'rebalance_id', nullable: true }) rebalanceId!: string | null;
  @Column({ type: 'jsonb' }) evidence!: RebalanceEvidence[];
  @Column({ type: 'timestamptz', name: 'recorded_at' }) recordedAt!: Date;
}

type Row = Record<string, unknown>;
/** At most this many interruptions in one answer: a window with more is to be narrowed. */
export const INTERRUPTIONS_MAX = 10_000;

const viewOf = (r: Row): InterruptionView => ({
  ...nodeIdentityOf(r),
  interruptedAt: (r['interrupted_at'] as Date).toISOString(),
  source: r['source'] as InterruptionSource,
  rebalanceId: (r['rebalance_id'] as string | null) ?? null,
  evidence: (r['evidence'] as RebalanceEvidence[]) ?? [],
});

/** SpotInterruptionsRepository — `nodes.spot_interruptions`, in SQL. */
export class SpotInterruptionsRepository {
  constructor(private readonly ds: DataSource) {}

  /** recorded — which of these Node objects' interruptions are recorded already. */
  async recorded(uids: readonly string[]): Promise<Set<string>> {
    if (uids.length === 0) return new Set();
    const rows: Row[] = await this.ds.query(`SELECT node_uid FROM nodes.spot_interruptions WHERE node_uid = ANY($1::text[])`, [uids]);
    return new Set(rows.map((r) => r['node_uid'] as string));
  }

  /** insert — new interruptions; one already there for the node uid is left alone. Returns those inserted. */
  async insert(records: readonly InterruptionRecord[], now: Date): Promise<InterruptionRecord[]> {
    const inserted: InterruptionRecord[] = [];
    for (const e of records) {
      const rows = (await this.ds.query(
        `INSERT INTO nodes.spot_interruptions (id, node_name, node_uid, instance_id, instance_type, zone, capacity_type, node_pool, interrupted_at, source, rebalance_id, evidence, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (node_uid) DO NOTHING RETURNING id`,
        [e.id, e.node, e.nodeUid, e.instanceId, e.instanceType, e.zone, e.capacityType, e.nodePool, e.interruptedAt, e.source, e.rebalanceId, JSON.stringify(e.evidence), now],
      )) as Row[];
      if (rows.length > 0) inserted.push(e);
    }
    return inserted;
  }

  /** between — interruptions at or after `from` and before `to`, oldest first, at most {@link INTERRUPTIONS_MAX} (+1 to tell). */
  async between(from: Date, to: Date, f: { instanceType?: string; zone?: string } = {}): Promise<{ items: InterruptionView[]; truncated: boolean }> {
    const rows: Row[] = await this.ds.query(
      `SELECT id, node_name, node_uid, instance_id, instance_type, zone, capacity_type, node_pool, interrupted_at, source, rebalance_id, evidence
         FROM nodes.spot_interruptions
        WHERE interrupted_at >= $1 AND interrupted_at < $2 AND ($3::text IS NULL OR instance_type = $3) AND ($4::text IS NULL OR zone = $4)
        ORDER BY interrupted_at, id LIMIT $5`,
      [from, to, f.instanceType ?? null, f.zone ?? null, INTERRUPTIONS_MAX + 1],
    );
    return { items: rows.slice(0, INTERRUPTIONS_MAX).map(viewOf), truncated: rows.length > INTERRUPTIONS_MAX };
  }
}
