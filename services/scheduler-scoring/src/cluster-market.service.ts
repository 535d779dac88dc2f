import { Inject, Injectable } from '@nestjs/common';
import type { CommandMeta } from '@nodes-manager/contracts';
import { CLOCK, CodedError, type Clock } from '@nodes-manager/platform';
import { countWorkloadZones, planConsolidation, type ConsolidationPlan, type ScoringContext, type ScoringWeights } from '@nodes-manager/scoring';
import type { SchedulerScoringConfig } from './config.js';
import type { ClusterSnapshot, PriceSnapshot } from './domain/cluster.js';
import { bundledCatalog, toCatalog, type CatalogSnapshot, type InstanceTypeFacts } from './domain/instance-catalog.js';
import type { CatalogSource } from './adapters/outbound/catalog-source.adapter.js';
import type { ClusterCache } from './adapters/outbound/cluster-cache.adapter.js';
import type { PriceSource } from './adapters/outbound/price-source.adapter.js';
import { CATALOG_SOURCE, CLUSTER_CACHE, PRICE_SOURCE, SCHEDULER_SCORING_CONFIG } from './tokens.js';

/**
 * ClusterMarketService — what every answer and cycle decides on: the cluster cache's snapshot (SERVICE_UNAVAILABLE
 * until it has listed), the prices and the instance catalog (each cached for its interval), the scoring context and
 * the consolidation plan on them.
 */
@Injectable()
export class ClusterMarketService {
  private readonly weights: ScoringWeights | undefined;
  private priceCache?: { at: number; prices: PriceSnapshot; zones: string };
  private catalogCache?: { at: number; types: readonly InstanceTypeFacts[] };

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(PRICE_SOURCE) private readonly priceSource: PriceSource,
    @Inject(CATALOG_SOURCE) private readonly catalogSource: CatalogSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.weights = config.SCORING_WEIGHTS;
  }

  snapshot(): ClusterSnapshot {
    if (!this.cluster.synced) throw new CodedError('SERVICE_UNAVAILABLE', 'scheduler-scoring has not finished listing the cluster yet', { synced: false });
    return this.cluster.snapshot();
  }

  /** prices — spot-advisor's (or the bundled) table, reused for one scan interval; each cycle asks afresh. */
  async prices(snap: ClusterSnapshot, meta: CommandMeta, fresh = false): Promise<PriceSnapshot> {
    const zones = [...new Set(snap.nodes.map((n) => n.zone))].sort();
    const key = zones.join(',');
    const now = this.clock.now().getTime();
    const c = this.priceCache;
    if (!fresh && c && c.zones === key && now - c.at < this.config.SCAN_INTERVAL_SECONDS * 1000) return c.prices;
    const prices = await this.priceSource.prices(zones, meta);
    this.priceCache = { at: now, prices, zones: key };
    return prices;
  }

  /**
   * market — prices and the instance catalog new nodes may be, fetched together. The catalog is spot-advisor's
   * EC2 types (reused for CATALOG_CACHE_SECONDS; only an answer is kept, so a missing spot-advisor is asked again
   * with the next prices) mapped with these prices by `toCatalog`; the bundled catalog when it does not answer.
   */
  async market(snap: ClusterSnapshot, meta: CommandMeta, fresh = false): Promise<{ prices: PriceSnapshot; catalog: CatalogSnapshot }> {
    const [prices, catalog] = await Promise.all([this.prices(snap, meta, fresh), this.catalogFacts(meta)]);
    if (!catalog.ok) return { prices, catalog: bundledCatalog(catalog.detail) };
    const mapped = toCatalog(catalog.types, prices.table);
    if (mapped.types.length === 0) return { prices, catalog: bundledCatalog(`EMPTY: none of spot-advisor's ${catalog.types.length} instance types is usable`) };
    return { prices, catalog: { types: mapped.types, source: 'spot-advisor', excluded: mapped.excluded } };
  }

  private async catalogFacts(meta: CommandMeta): Promise<{ ok: true; types: readonly InstanceTypeFacts[] } | { ok: false; detail: string }> {
    const now = this.clock.now().getTime();
    const c = this.catalogCache;
    if (c && now - c.at < this.config.CATALOG_CACHE_SECONDS * 1000) return { ok: true, types: c.types };
    const fetched = await this.catalogSource.instanceTypes(meta);
    if (fetched.ok) this.catalogCache = { at: now, types: fetched.types };
    return fetched;
  }

  context(snap: ClusterSnapshot, prices: PriceSnapshot): ScoringContext {
    return {
      prices: prices.table,
      zones: [...new Set(snap.nodes.map((n) => n.zone))].sort(),
      workloadZoneCounts: countWorkloadZones(snap.pods, snap.nodes),
      ...(this.weights ? { weights: this.weights } : {}),
    };
  }

  /** consolidate — the consolidation plan on `snap` at these prices, of one NodePool's nodes when given. */
  consolidate(snap: ClusterSnapshot, prices: PriceSnapshot, nodePool?: string): ConsolidationPlan {
    return planConsolidation({
      nodes: snap.nodes,
      pods: snap.pods,
      pdbs: snap.pdbs,
      prices: prices.table,
      threshold: this.config.OPTIMIZE_UTILIZATION_THRESHOLD,
      ...(nodePool ? { candidates: (n) => n.nodePool === nodePool } : {}),
    });
  }

  /** poolOf — each node's NodePool in the snapshot (for per-pool maintenance windows). */
  poolOf(snap: ClusterSnapshot): (node: string) => string | undefined {
    const pools = new Map(snap.nodes.map((n) => [n.name, n.nodePool]));
    return (node) => pools.get(node) ?? undefined;
  }
}
