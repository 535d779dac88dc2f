import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import type { DataSource } from 'typeorm';
import { assertHistory, CodedError, createDataSource, JsonLogger, runMigrations, RUNTIME, type LogLevel, type Runtime } from '@nodes-manager/platform';
import { migrations } from '../../../../../migrations/api-gateway/index.js';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * One fixed window per key: the first hit opens it (`RATE_LIMIT_WINDOW_SECONDS` long, by the database's clock, so
 * every replica agrees), each hit adds one, a hit after it ended opens the next. One statement, atomic under
 * concurrent replicas (the row lock of ON CONFLICT). Returns the count with this hit and the seconds left.
 */
const HIT = `
  INSERT INTO nodes.rate_limit_windows AS w (key, hits, window_ends)
  VALUES ($1, 1, clock_timestamp() + make_interval(secs => $2::float8 / 1000))
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN w.window_ends <= clock_timestamp() THEN 1 ELSE w.hits + 1 END,
    window_ends = CASE WHEN w.window_ends <= clock_timestamp() THEN EXCLUDED.window_ends ELSE w.window_ends END
  RETURNING hits, GREATEST(0, EXTRACT(EPOCH FROM (window_ends - clock_timestamp())))::float8 AS seconds_left`;

/** How long a failed store is left alone before it is tried again (the local count serves meanwhile). */
const RETRY_STORE_AFTER_HITS = 20;

/**
 * SharedRateLimitStorage — @nestjs/throttler's storage, shared by every gateway replica through Postgres
 * (`nodes.rate_limit_windows`, docs/api.md#rate-limits; why Postgres: docs/stack.md). So N replicas allow the limit,
 * not N times it.
 *
 * Fails safe: when the database cannot be reached a hit is counted by this replica alone (the library's in-memory
 * storage, as with one replica) — the limit still holds per replica, a request is never refused or failed because
 * the store is down, and the store is tried again after {@link RETRY_STORE_AFTER_HITS} local hits. The switch is
 * logged once each way.
 */
export class SharedRateLimitStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly local = new ThrottlerStorageService();
  private degradedHits = 0;
  private closing?: Promise<void>;

  private constructor(
    private readonly ds: DataSource,
    private readonly logger: JsonLogger,
  ) {}

  /**
   * open — connects, checks the recorded history and applies the gateway's migration under the platform's advisory
   * lock (a lying history refuses the start, exit 78, as in every service).
   */
  static async open(url: string, logger: JsonLogger): Promise<SharedRateLimitStorage> {
    const spec = { service: 'api-gateway', url, entities: [], migrations, poolSize: 4 };
    const ds = createDataSource(spec);
    await ds.initialize();
    try {
      const applied = await runMigrations(ds, spec, { beforePending: () => assertHistory(ds, spec) });
      if (applied.length) logger.info('migrations applied', { migrations: applied });
    } catch (err) {
      await ds.destroy().catch(() => undefined);
      throw err;
    }
    return new SharedRateLimitStorage(ds, logger);
  }

  /** shared — whether hits are counted in the shared store right now (false while it is unreachable). */
  get shared(): boolean {
    return this.degradedHits === 0;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    if (this.degradedHits > 0 && this.degradedHits++ % RETRY_STORE_AFTER_HITS !== 0) return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
    try {
      const [row] = (await this.ds.query(HIT, [`${throttlerName}:${key}`, ttl])) as { hits: number; seconds_left: number }[];
      if (this.degradedHits > 0) this.logger.warn('rate-limit store reachable again: counts are shared by the replicas', {});
      this.degradedHits = 0;
      const secondsLeft = Math.max(0, Number(row!.seconds_left));
      const blocked = row!.hits > limit;
      return { totalHits: row!.hits, timeToExpire: Math.ceil(secondsLeft), isBlocked: blocked, timeToBlockExpire: blocked ? Math.max(1, Math.ceil(secondsLeft)) : 0 };
    } catch (err) {
      if (this.degradedHits === 0) {
        this.logger.warn('rate-limit store unreachable: each replica counts on its own until it is back', { err: CodedError.from(err).message });
        this.degradedHits = 1;
      }
      return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
    }
  }

  onApplicationShutdown(): Promise<void> {
    this.local.onApplicationShutdown();
    return (this.closing ??= this.ds.isInitialized ? this.ds.destroy() : Promise.resolve());
  }
}

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

/**
 * RateLimitStoreModule — the shared storage when `RATE_LIMIT_DATABASE_URL` is set, else null (each replica counts on
 * its own: right for one replica and the all-in-one process). The gateway's rate-limit options take it from here.
 */
@Module({})
export class RateLimitStoreModule {
  static forRoot(config: { RATE_LIMIT_DATABASE_URL?: string | undefined; LOG_LEVEL?: unknown }): DynamicModule {
    return {
      module: RateLimitStoreModule,
      providers: [
        {
          provide: RATE_LIMIT_STORAGE,
          inject: [RUNTIME],
          useFactory: (rt: Runtime) =>
            config.RATE_LIMIT_DATABASE_URL ? SharedRateLimitStorage.open(config.RATE_LIMIT_DATABASE_URL, new JsonLogger('api-gateway', (config.LOG_LEVEL as LogLevel | undefined) ?? rt.logLevel)) : null,
        },
      ],
      exports: [RATE_LIMIT_STORAGE],
    };
  }
}
