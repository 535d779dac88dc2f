import type { DataSource } from 'typeorm';
import type { CloudEvent } from '@nodes-manager/contracts';
import type { EventPublisher } from './event-publisher.js';
import type { Outbox } from './outbox.js';
import type { JsonLogger } from '../logging/logger.js';
import type { Clock } from '../clock/clock.js';

export interface OutboxRelayOptions {
  pollMs?: number;
  batchSize?: number;
  maxBackoffMs?: number;
  /** Sent rows older than this are deleted. */
  retentionMs?: number;
}

/** How many confirmed-but-unmarked ids the relay remembers. */
const MAX_CONFIRMED_UNMARKED = 10_000;

export interface OutboxBacklog {
  pending: number;
  oldestAgeSeconds: number;
}

/**
 * OutboxRelay — moves committed outbox rows to the publisher in `seq` order. Rows are locked with
 * `FOR UPDATE SKIP LOCKED`, so several replicas relay without double work; a row is marked sent only after the
 * broker confirmed it. On failure the transaction rolls back, the rows stay pending and the relay backs off.
 * Sent rows are purged at most once a minute of the injected clock; the shutdown flush is bounded by a monotonic
 * deadline.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running = false;
  private stopped = true;
  private again = false;
  private failures = 0;
  private lastPurge = 0;
  readonly stats = { published: 0, failures: 0, duplicatesAvoided: 0 };
  /** Event ids the broker confirmed whose `sent_at` is not committed yet (see {@link relayOnce}). */
  private readonly confirmedUnmarked = new Set<string>();

  constructor(
    private readonly ds: DataSource,
    private readonly outbox: Outbox,
    private readonly publisher: EventPublisher,
    private readonly clock: Clock,
    private readonly logger?: JsonLogger,
    private readonly opts: OutboxRelayOptions = {},
  ) {
    outbox.onAdded(() => this.kick());
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.running) await new Promise((r) => setTimeout(r, 10));
  }

  /**
   * flush — one last pass on shutdown, bounded by `ms`: what is committed goes out now instead of waiting for
   * another replica (or the next start). Never throws; what is left stays in the outbox.
   */
  async flush(ms: number): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const deadline = performance.now() + ms;
    while (this.running && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      (async () => {
        try {
          while (performance.now() < deadline && (await this.relayOnce()) > 0);
        } catch {
          /* broker or database gone: the rows wait in the outbox */
        }
      })(),
      new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - performance.now())))),
    ]);
    clearTimeout(timer);
  }

  /** retryNow — the publisher is reachable again: forget the back-off and relay at once. */
  retryNow(): void {
    if (this.stopped) return;
    this.failures = 0;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else if (this.failures === 0) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), ms);
  }

  private async loop(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = true;
    let next = this.opts.pollMs ?? 500;
    try {
      let n: number;
      do {
        this.again = false;
        n = await this.relayOnce();
      } while (!this.stopped && (n === (this.opts.batchSize ?? 500) || this.again));
      this.failures = 0;
      await this.purge();
    } catch (err) {
      this.failures++;
      this.stats.failures++;
      next = Math.min(this.opts.maxBackoffMs ?? 10_000, 250 * 2 ** Math.min(this.failures, 6));
      if (this.failures === 1 || this.failures % 20 === 0) {
        this.logger?.warn('outbox relay cannot publish; events wait in the outbox', {
          outbox: this.outbox.table,
          attempt: this.failures,
          err: (err as Error).message,
        });
      }
    } finally {
      this.running = false;
      if (!this.stopped) this.schedule(next);
    }
  }

  /**
   * relayOnce — publishes one batch; returns how many rows were marked sent. Throws when the publisher fails.
   *
   * The duplicate window (docs/reliability.md): the broker may confirm a batch whose `sent_at` commit is then lost
   * (the database went away between the two). The ids it confirmed are kept in memory until a later pass marks
   * them sent without publishing them again, so a database outage repeats nothing as long as this process lives;
   * only a crash in that instant (or another replica taking the rows) republishes, which consumers absorb by id.
   */
  async relayOnce(): Promise<number> {
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    let confirmed: string[] = [];
    try {
      await qr.startTransaction();
      const rows: { seq: string; payload: CloudEvent }[] = await qr.query(
        `SELECT seq, payload FROM ${this.outbox.table} WHERE sent_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.opts.batchSize ?? 500],
      );
      if (rows.length === 0) {
        await qr.commitTransaction();
        return 0;
      }
      const fresh = rows.filter((r) => !this.confirmedUnmarked.has(r.payload.id));
      try {
        await this.publisher.publish(fresh.map((r) => r.payload));
      } catch (err) {
        await qr.rollbackTransaction();
        await this.ds
          .query(`UPDATE ${this.outbox.table} SET attempts = attempts + 1, last_error = $2 WHERE seq = ANY($1::bigint[])`, [
            fresh.map((r) => r.seq),
            (err as Error).message.slice(0, 500),
          ])
          .catch(() => undefined);
        throw err;
      }
      confirmed = rows.map((r) => r.payload.id);
      for (const r of fresh) this.rememberConfirmed(r.payload.id);
      this.stats.published += fresh.length;
      this.stats.duplicatesAvoided += rows.length - fresh.length;
      await qr.query(`UPDATE ${this.outbox.table} SET sent_at = now() WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)]);
      await qr.commitTransaction();
      for (const id of confirmed) this.confirmedUnmarked.delete(id);
      return rows.length;
    } catch (err) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  /** Bounded: an id older than the newest MAX_CONFIRMED_UNMARKED is forgotten (and would be republished once). */
  private rememberConfirmed(id: string): void {
    this.confirmedUnmarked.add(id);
    if (this.confirmedUnmarked.size > MAX_CONFIRMED_UNMARKED) {
      this.confirmedUnmarked.delete(this.confirmedUnmarked.values().next().value as string);
    }
  }

  async backlog(): Promise<OutboxBacklog> {
    const [r] = await this.ds.query(
      `SELECT count(*)::int AS pending, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age
         FROM ${this.outbox.table} WHERE sent_at IS NULL`,
    );
    return { pending: r.pending, oldestAgeSeconds: Math.max(0, r.age) };
  }

  private async purge(): Promise<void> {
    const retention = this.opts.retentionMs ?? 24 * 3600_000;
    const now = this.clock.now().getTime();
    if (now - this.lastPurge < 60_000) return;
    this.lastPurge = now;
    await this.ds.query(
      `DELETE FROM ${this.outbox.table} WHERE sent_at IS NOT NULL AND sent_at < now() - ($1::float8 * interval '1 millisecond')`,
      [retention],
    );
  }
}
