import type { DataSource } from 'typeorm';
import type { CloudEvent } from '@nodes-manager/contracts';
import type { Outbox } from '@nodes-manager/platform';
import type { SpotPriceSample } from '../../domain/spot-price.js';

/**
 * SpotPriceRepository — `nodes.spot_price_samples`. A refresh's samples go in with one set-based statement
 * (unnest arrays, ON CONFLICT DO NOTHING: a price point already recorded by an earlier refresh is skipped), in the
 * same transaction as the refresh's event in the outbox.
 */
export class SpotPriceRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly outbox: Outbox,
  ) {}

  /**
   * history — one instance type's Spot price points per zone in [from, to], each zone starting with the price in
   * effect at `from` (its last point before it), oldest first; at most `limit` points in all.
   */
  async history(region: string, instanceType: string, from: Date, to: Date, product = 'Linux/UNIX', limit = 20_000): Promise<{ zone: string; at: Date; usdPerHour: number }[]> {
    const rows = (await this.ds.query(
      `SELECT zone, sampled_at, price_usd FROM (
         SELECT DISTINCT ON (zone) zone, sampled_at, price_usd FROM nodes.spot_price_samples
          WHERE region = $1 AND instance_type = $2 AND product_description = $5 AND sampled_at < $3
          ORDER BY zone, sampled_at DESC) AS in_effect_at_start
       UNION ALL
       SELECT zone, sampled_at, price_usd FROM nodes.spot_price_samples
        WHERE region = $1 AND instance_type = $2 AND product_description = $5 AND sampled_at >= $3 AND sampled_at <= $4
       ORDER BY zone, sampled_at
       LIMIT $6`,
      [region, instanceType, from.toISOString(), to.toISOString(), product, limit],
    )) as { zone: string; sampled_at: Date; price_usd: number }[];
    return rows.map((r) => ({ zone: r.zone, at: new Date(r.sampled_at), usdPerHour: Number(r.price_usd) }));
  }

  /** recordRefresh — stores the samples and the event built from how many were new; returns that count. */
  async recordRefresh(
    region: string,
    samples: readonly SpotPriceSample[],
    fetchedAt: Date,
    eventOf: (inserted: number) => CloudEvent,
  ): Promise<number> {
    const inserted = await this.ds.transaction(async (tx) => {
      const rows = (await tx.query(
        `WITH ins AS (
           INSERT INTO nodes.spot_price_samples (region, instance_type, zone, product_description, price_usd, sampled_at, fetched_at)
           SELECT $1, t.instance_type, t.zone, t.product, t.price, t.sampled_at, $7
             FROM unnest($2::text[], $3::text[], $4::text[], $5::float8[], $6::timestamptz[])
                  AS t(instance_type, zone, product, price, sampled_at)
           ON CONFLICT DO NOTHING
           RETURNING 1)
         SELECT count(*)::int AS n FROM ins`,
        [
          region,
          samples.map((s) => s.instanceType),
          samples.map((s) => s.availabilityZone),
          samples.map((s) => s.productDescription ?? 'Linux/UNIX'),
          samples.map((s) => s.usdPerHour),
          samples.map((s) => s.timestamp.toISOString()),
          fetchedAt.toISOString(),
        ],
      )) as { n: number }[];
      const n = rows[0]?.n ?? 0;
      await this.outbox.add(tx, [eventOf(n)]);
      return n;
    });
    this.outbox.added();
    return inserted;
  }
}
