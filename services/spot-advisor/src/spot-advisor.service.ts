import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EventTypes, poolKey, type CommandMeta } from '@nodes-manager/contracts';
import { CLOCK, CodedError, HEALTH_REGISTRY, LOGGER, makeEvent, type Clock, type HealthRegistry, type JsonLogger } from '@nodes-manager/platform';
import { awsConfigProblem, SPOT_ADVISOR_CONFIG, type SpotAdvisorConfig } from './config.js';
import { PriceCache, type CachedValue } from './adapters/outbound/price.cache.js';
import { onDemandTableFor, summariseMarket } from './domain/spot-market.js';
import { advisorBucketFor } from './domain/spot-advisor-snapshot.js';
import {
  catalogOf,
  freshnessOf,
  onDemandSource,
  poolPrices,
  selectPools,
  unmatched,
  type InstanceTypeFacts,
  type PoolFilter,
  type RegionMarket,
} from './domain/market-view.js';
import { provisionArguments, resolveLaunch, sameArguments, type ProvisionRequest } from './domain/provisioning.js';
import { Ec2Error, type RunInstancesRequest } from './adapters/outbound/ec2.adapter.js';
import { Ec2Regions } from './adapters/outbound/ec2-regions.adapter.js';
import { SpotPriceRepository } from './adapters/outbound/spot-price.repository.js';
import { ProvisioningRepository } from './adapters/outbound/provisioning.repository.js';
import type { BusMeasuredRebalances, MeasuredPools } from './adapters/outbound/measured-rebalances.js';
import { withMeasuredBasis } from './domain/measured-basis.js';
import type { MarketEntry } from './domain/spot-market.js';

export const EC2_REGIONS = Symbol('EC2_REGIONS');
/** uncordon's rebalance figures, for the estimate's "measured in this cluster" basis. */
export const MEASURED_REBALANCES = Symbol('MEASURED_REBALANCES');

export interface MarketQuery extends PoolFilter {
  readonly region?: string;
}

const SYSTEM_ACTOR = 'system:spot-advisor';

/**
 * SpotAdvisorService — the Spot market (per region, cached, history persisted), prices for scoring, the
 * instance-type catalog, and idempotent on-demand provisioning. Every EC2 failure leaves as a CodedError.
 */
@Injectable()
export class SpotAdvisorService implements OnModuleInit, OnApplicationShutdown {
  private readonly markets: PriceCache<RegionMarket>;
  private readonly catalogs: PriceCache<InstanceTypeFacts[]>;
  private readonly windowMs: number;
  /** A credential failure seen from the SDK's chain (startup check or a call); cleared by the next good call. */
  private credentialProblem?: string;

  constructor(
    @Inject(SPOT_ADVISOR_CONFIG) private readonly config: SpotAdvisorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EC2_REGIONS) private readonly ec2: Ec2Regions,
    @Inject(SpotPriceRepository) private readonly prices: SpotPriceRepository,
    @Inject(ProvisioningRepository) private readonly provisioning: ProvisioningRepository,
    @Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Optional() @Inject(MEASURED_REBALANCES) private readonly measured?: BusMeasuredRebalances,
  ) {
    this.windowMs = config.SPOT_PRICE_WINDOW_HOURS * 3_600_000;
    this.markets = new PriceCache((region) => this.refreshMarket(region), clock, { ttlMs: config.SPOT_PRICE_CACHE_SECONDS * 1000 });
    this.catalogs = new PriceCache((region) => this.ec2.for(region).describeInstanceTypes(), clock, {
      ttlMs: config.INSTANCE_TYPES_CACHE_SECONDS * 1000,
    });
  }

  onModuleInit(): void {
    this.health.register('spot-advisor.aws', () => {
      const problem = awsConfigProblem(this.config);
      if (problem) return { ok: false, degraded: true, detail: problem.message };
      if (this.credentialProblem) return { ok: false, degraded: true, detail: this.credentialProblem };
      return { ok: true, detail: `EC2 in ${this.config.AWS_REGION}` };
    });
    // Without key variables the SDK's default chain applies; find out now, off the start-up path, whether it has any.
    if (!awsConfigProblem(this.config) && !this.config.AWS_ACCESS_KEY_ID) {
      this.ec2
        .for(this.config.AWS_REGION!)
        .checkCredentials()
        .then(
          () => (this.credentialProblem = undefined),
          (e: unknown) => this.noteFailure(e),
        );
    }
  }

  onApplicationShutdown(): void {
    this.ec2.destroy();
  }

  /** market — per Spot pool of the region: prices, saving, trend and interruption estimate, with the data's age. */
  async market(q: MarketQuery) {
    const region = this.regionFor(q.region);
    const cached = await this.cached(this.markets, region);
    const measured = await this.measured?.get();
    return {
      region,
      window: {
        hours: this.config.SPOT_PRICE_WINDOW_HOURS,
        from: cached.data.windowStart.toISOString(),
        to: cached.data.windowEnd.toISOString(),
      },
      ...freshnessOf(cached),
      onDemand: onDemandSource(region),
      measured: this.measuredSource(measured),
      items: this.withMeasured(selectPools(cached.data.entries, q), measured),
      unmatched: unmatched(cached.data.entries, q),
    };
  }

  /**
   * history — one instance type's Spot price changes per zone over the market's window (the points the last refresh
   * stored), for the console's chart: each zone starts with the price in effect at the window's start.
   */
  async history(q: { region?: string; instanceType: string }) {
    const region = this.regionFor(q.region);
    const cached = await this.cached(this.markets, region);
    const { windowStart, windowEnd } = cached.data;
    const points = await this.prices.history(region, q.instanceType, windowStart, windowEnd);
    const zones = new Map<string, { at: string; usdPerHour: number }[]>();
    for (const p of points) {
      const list = zones.get(p.zone) ?? [];
      list.push({ at: (p.at < windowStart ? windowStart : p.at).toISOString(), usdPerHour: p.usdPerHour });
      zones.set(p.zone, list);
    }
    return {
      region,
      instanceType: q.instanceType,
      window: { hours: this.config.SPOT_PRICE_WINDOW_HOURS, from: windowStart.toISOString(), to: windowEnd.toISOString() },
      ...freshnessOf(cached),
      zones: [...zones.entries()].map(([zone, pts]) => ({ zone, points: pts })),
    };
  }

  /** withMeasured — each pool's estimate with uncordon's measurement beside it (and used, with enough samples). */
  private withMeasured(entries: MarketEntry[], measured: MeasuredPools | undefined): MarketEntry[] {
    if (!measured) return entries;
    return entries.map((e) => withMeasuredBasis(e, measured.pools.get(poolKey({ instanceType: e.instanceType, zone: e.availabilityZone })), this.config.SPOT_MEASURED_MIN_SAMPLES, measured.horizonHours));
  }

  private measuredSource(m: MeasuredPools | undefined) {
    if (!m) return { source: 'rebalance ledger (uncordon)', available: false, detail: 'not wired' };
    return {
      source: 'rebalance ledger (uncordon)',
      available: m.asOf !== null && m.detail === undefined,
      asOf: m.asOf,
      minSamples: this.config.SPOT_MEASURED_MIN_SAMPLES,
      horizonHours: m.horizonHours,
      pools: m.pools.size,
      ...(m.detail ? { detail: m.detail } : {}),
    };
  }

  /** spotPrices — scheduler-scoring's PriceInfo per (type, zone), from the same cached market. */
  async spotPrices(q: MarketQuery) {
    const region = this.regionFor(q.region);
    const cached = await this.cached(this.markets, region);
    // Never waits on uncordon: scheduler-scoring waits on this answer.
    const measured = this.measured?.peek();
    return { region, ...freshnessOf(cached), prices: poolPrices(this.withMeasured(selectPools(cached.data.entries, q), measured)) };
  }

  /** instanceTypes — DescribeInstanceTypes (cached per region) with the bundled On-Demand price where known. */
  async instanceTypes(q: { region?: string; instanceTypes?: readonly string[] }) {
    const region = this.regionFor(q.region);
    const cached = await this.cached(this.catalogs, region);
    const items = catalogOf(cached.data, onDemandTableFor(region), q.instanceTypes);
    const known = new Set(cached.data.map((t) => t.name));
    return {
      region,
      ...freshnessOf(cached),
      onDemand: onDemandSource(region),
      items,
      unknown: [...new Set(q.instanceTypes ?? [])].filter((t) => !known.has(t)),
    };
  }

  /**
   * provision — RunInstances from the configured launch settings, exactly once per client token: the
   * `provisioning_requests` row answers a retry of a succeeded launch with its recorded result, and EC2's
   * ClientToken covers a retry of one whose outcome we never recorded. A dry run starts nothing and says so.
   */
  async provision(req: ProvisionRequest, meta: CommandMeta) {
    const aws = awsConfigProblem(this.config);
    const launch = resolveLaunch(this.config);
    if (aws || !launch.ok) {
      const problems = [...(aws ? [aws.message] : []), ...(!launch.ok ? [launch.message] : [])];
      throw new CodedError('AWS_NOT_CONFIGURED', `instance provisioning is not configured: ${problems.join('; ')}`, {
        missing: [...(aws?.missing ?? []), ...(!launch.ok ? launch.variables : [])],
      });
    }
    const region = this.config.AWS_REGION!;
    const args = provisionArguments(req);
    const now = this.clock.now();
    const entry = { clientToken: req.clientToken, actor: meta.actor, correlationId: meta.correlationId, dryRun: req.dryRun, request: args, now };
    const run = (requestedBy: string): RunInstancesRequest => ({
      ...launch.launch,
      clientToken: req.clientToken,
      dryRun: req.dryRun,
      instanceType: req.instanceType,
      count: req.count,
      requestedBy,
      ...(req.zone ? { availabilityZone: req.zone } : {}),
      ...(req.tags ? { tags: req.tags } : {}),
    });
    const ec2 = this.ec2.for(region);

    if (req.dryRun) {
      try {
        await ec2.runInstances(run(meta.actor));
      } catch (e) {
        const err = this.coded(e);
        await this.provisioning.recordDryRun(entry, { error: err.toBody() as unknown as Record<string, unknown> });
        throw err;
      }
      const result = {
        clientToken: req.clientToken,
        dryRun: true,
        wouldSucceed: true,
        started: 0,
        instanceType: req.instanceType,
        count: req.count,
        message: `dry run: EC2 would start ${req.count} × ${req.instanceType}; nothing was started`,
      };
      const requestId = await this.provisioning.recordDryRun(entry, { result });
      this.logger.info('provisioning dry run', { clientToken: req.clientToken, instanceType: req.instanceType, correlationId: meta.correlationId });
      return { requestId, ...result };
    }

    const { record, created } = await this.provisioning.claim(entry);
    if (!created) {
      if (!sameArguments(record.request, args)) {
        throw new CodedError('CONFLICT', `client token ${req.clientToken} was already used for a different request`, {
          clientToken: req.clientToken,
          recorded: record.request,
        });
      }
      if (record.status === 'succeeded' && record.result) return { ...record.result, replayed: true };
      // pending (in flight, or interrupted before its outcome was recorded) or failed: EC2's ClientToken dedupes.
    }
    const requestedBy = record.actor;
    let out;
    try {
      out = await ec2.runInstances(run(requestedBy));
    } catch (e) {
      const err = this.coded(e);
      await this.provisioning.fail(record.id, err.toBody() as unknown as Record<string, unknown>, this.clock.now());
      throw err;
    }
    if (out.dryRun) throw new CodedError('INTERNAL', 'EC2 answered a launch as a dry run');
    const instances = out.instances.map((i) => ({
      instanceId: i.instanceId,
      instanceType: i.instanceType,
      availabilityZone: i.availabilityZone ?? null,
      state: i.state ?? null,
      launchTime: i.launchTime?.toISOString() ?? null,
    }));
    const result = {
      requestId: record.id,
      clientToken: req.clientToken,
      dryRun: false,
      region,
      reservationId: out.reservationId,
      instanceType: req.instanceType,
      count: req.count,
      requestedBy,
      launchedFrom: launch.source,
      instances,
    };
    const instanceIds = instances.map((i) => i.instanceId);
    const event = makeEvent(
      'spot-advisor',
      EventTypes.instanceProvisioned,
      { requestId: record.id, clientToken: req.clientToken, region, reservationId: out.reservationId, instanceType: req.instanceType, count: req.count, instanceIds, requestedBy },
      this.clock.now(),
      { actor: meta.actor, correlationId: meta.correlationId, subject: out.reservationId },
    );
    const wrote = await this.provisioning.succeed(record.id, instanceIds, result, this.clock.now(), event);
    if (!wrote) {
      const recorded = await this.provisioning.get(record.id);
      if (recorded?.result) return { ...recorded.result, replayed: true };
    }
    this.logger.info('instances provisioned', { clientToken: req.clientToken, reservationId: out.reservationId, instanceIds, correlationId: meta.correlationId });
    return { ...result, replayed: false };
  }

  /** refreshMarket — the PriceCache's fetcher: one paged price-history read, summarised once, then persisted. */
  private async refreshMarket(region: string): Promise<RegionMarket> {
    const end = this.clock.now();
    const start = new Date(end.getTime() - this.windowMs);
    const samples = await this.ec2.for(region).describeSpotPriceHistory({ start, end });
    const entries = summariseMarket(samples, onDemandTableFor(region), end, {
      windowMs: this.windowMs,
      advisorBucket: (t) => advisorBucketFor(region, t),
    });
    try {
      await this.prices.recordRefresh(region, samples, end, (inserted) =>
        makeEvent(
          'spot-advisor',
          EventTypes.spotPricesRefreshed,
          {
            region,
            fetchedAt: end.toISOString(),
            windowStart: start.toISOString(),
            windowEnd: end.toISOString(),
            samples: samples.length,
            inserted,
            pools: entries.length,
            instanceTypes: new Set(entries.map((e) => e.instanceType)).size,
            zones: [...new Set(entries.map((e) => e.availabilityZone))].sort(),
          },
          end,
          { actor: SYSTEM_ACTOR, subject: region },
        ),
      );
    } catch (err) {
      // The prices are good; only their history row is late. The next refresh re-reads the whole window and
      // ON CONFLICT DO NOTHING fills the gap, so serving them is right.
      this.logger.error('spot price samples not recorded', { region, err: (err as Error).message });
    }
    return { region, windowStart: start, windowEnd: end, samples: samples.length, entries };
  }

  /** regionFor — the region asked about (default AWS_REGION), or AWS_NOT_CONFIGURED naming what is missing. */
  private regionFor(asked: string | undefined): string {
    const problem = awsConfigProblem(this.config);
    if (problem) throw new CodedError('AWS_NOT_CONFIGURED', `EC2 is not configured: ${problem.message}`, { missing: problem.missing });
    return asked ?? this.config.AWS_REGION!;
  }

  private async cached<T>(cache: PriceCache<T>, region: string): Promise<CachedValue<T>> {
    try {
      const v = await cache.get(region);
      if (!v.stale) this.credentialProblem = undefined;
      else if (v.refreshError?.code === 'AWS_NOT_CONFIGURED') this.credentialProblem = v.refreshError.message;
      return v;
    } catch (e) {
      throw this.coded(e);
    }
  }

  private noteFailure(e: unknown): void {
    if (e instanceof Ec2Error && e.code === 'AWS_NOT_CONFIGURED') this.credentialProblem = e.message;
  }

  /** coded — an Ec2Error (or anything) as the CodedError that crosses the bus. */
  private coded(e: unknown): CodedError {
    this.noteFailure(e);
    if (e instanceof Ec2Error) return new CodedError(e.code, e.message, e.details);
    return CodedError.from(e);
  }
}
