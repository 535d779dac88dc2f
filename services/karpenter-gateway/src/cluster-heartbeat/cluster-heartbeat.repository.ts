import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { EventTypes, type ClusterHeartbeat } from '@nodes-manager/contracts';
import { DATA_SOURCE, fenced, makeEvent, OUTBOX, type Outbox } from '@nodes-manager/platform';

/** ClusterHeartbeatRepository — steering's pools by state, read for a beat, and the beat written to the outbox. */
@Injectable()
export class ClusterHeartbeatRepository {
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX) private readonly outbox: Outbox,
  ) {}

  /** steering — the pools by their last decision's state, and when a pass last decided (null before the first). */
  async steering(): Promise<{ pools: { state: string; n: number }[]; decidedAt: Date | null }> {
    const [pools, decided] = await Promise.all([
      this.ds.query(`SELECT state, count(*)::int AS n FROM nodes.pool_health GROUP BY state`) as Promise<{ state: string; n: number }[]>,
      this.ds.query(`SELECT max(decided_at) AS at FROM nodes.pool_health`) as Promise<{ at: Date | null }[]>,
    ]);
    return { pools, decidedAt: decided[0]?.at ? new Date(decided[0].at) : null };
  }

  /** publish — the beat in the outbox (which stamps the cluster's id and name); false when the fence refused it. */
  async publish(data: ClusterHeartbeat, now: Date, actor: string): Promise<boolean> {
    const written = await fenced(this.ds, 'outbox', async (tx) => {
      await this.outbox.add(tx, [makeEvent('karpenter-gateway', EventTypes.clusterHeartbeat, data, now, { actor, subject: 'cluster' })]);
      return true;
    });
    if (written !== true) return false;
    this.outbox.added();
    return true;
  }
}
