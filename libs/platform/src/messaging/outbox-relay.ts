import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import type { CloudEvent } from '@nodes-manager/contracts';
import type { EventPublisher } from './event-publisher.js';
import type { Outbox } from './outbox.js';
import type { JsonLogger } from '../logging/logger.js';
import type { Clock } from '../clock/clock.js';
import { EVENTS_EXCHANGE } from '@nodes-manager/contracts';
import { inSpan, MESSAGING, ROOT_CONTEXT, withContext, SpanKind, spanContextFrom, tracingOn, type TraceCarrier } from '../tracing/tracing.js';

export interface OutboxRelayOptions {
  pollMs?: number;
  batchSize?: number;
  maxBackoffMs?: number;
  /** Sent rows older than this are deleted. */
  retentionMs?: number;
  /**
   * How long a claimed batch is this relay's alone (default 30 s, past the broker's confirm timeout): long enough to
   * publish it and mark it sent across a short database outage; after it another replica may take the rows.
   */
  claimMs?: number;
}

/** How many confirmed-but-unmarked ids the relay remembers. */
const MAX_CONFIRMED_UNMARKED = 10_000;

export interface OutboxBacklog {
  pending: number;
  oldestAgeSeconds: number;
}

/**
 * OutboxRelay — moves committed outbox rows to the publisher in `seq` order. A batch is first **claimed** (a committed
 * `claimed_by`/`claimed_until` on its rows, taken with `FOR UPDATE SKIP LOCKED`), so several replicas relay without
 * double work and a claim survives the loss of this relay's database connection; then published with broker
 * confirms; then marked sent. On a publish failure the claim is released and the relay backs off.
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
  /** Who holds a claim: readable in the outbox table (`claimed_by`) when an operator looks at a stuck batch. */
  readonly relayId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

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
    // The relay belongs to no request: with tracing on its loop runs outside the trace of whoever kicked it.
    this.timer = setTimeout(() => void (tracingOn() ? withContext(ROOT_CONTEXT, () => this.loop()) : this.loop()), ms);
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
   * relayOnce — claims, publishes and marks one batch; returns how many rows were marked sent. Throws when the
   * publisher or the database fails.
   *
   * The duplicate window (docs/reliability.md): the broker may confirm a batch whose `sent_at` commit is then lost
   * (the database went away between the two). The claim stays committed, so no other replica takes those rows while
   * it lasts, and this relay keeps the ids the broker confirmed: its next pass takes its own claim back and marks
   * them sent without publishing them again. Only this process dying in that instant (or an outage longer than the
   * claim) republishes, which consumers absorb by id.
   */
  async relayOnce(): Promise<number> {
    const t = this.outbox.table;
    const rows: { seq: string; payload: CloudEvent; trace_context: TraceCarrier | null }[] = await this.ds.query(
      `WITH next AS (
         SELECT seq FROM ${t}
          WHERE sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < now() OR claimed_by = $2)
          ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE ${t} o SET claimed_by = $2, claimed_until = now() + ($3::float8 * interval '1 millisecond')
           FROM next WHERE o.seq = next.seq RETURNING o.seq, o.payload, o.trace_context
       )
       SELECT seq, payload, trace_context FROM claimed ORDER BY seq`,
      [this.opts.batchSize ?? 500, this.relayId, this.opts.claimMs ?? 30_000],
    );
    if (rows.length === 0) return 0;
    const seqs = rows.map((r) => r.seq);
    const fresh = rows.filter((r) => !this.confirmedUnmarked.has(r.payload.id));
    try {
      await this.publish(fresh);
    } catch (err) {
      await this.ds
        .query(`UPDATE ${t} SET claimed_by = NULL, claimed_until = NULL, attempts = attempts + 1, last_error = $3 WHERE seq = ANY($1::bigint[]) AND claimed_by = $2`, [
          fresh.map((r) => r.seq),
          this.relayId,
          (err as Error).message.slice(0, 500),
        ])
        .catch(() => undefined);
      throw err;
    }
    for (const r of fresh) this.rememberConfirmed(r.payload.id);
    this.stats.published += fresh.length;
    this.stats.duplicatesAvoided += rows.length - fresh.length;
    await this.ds.query(`UPDATE ${t} SET sent_at = now(), claimed_by = NULL, claimed_until = NULL WHERE seq = ANY($1::bigint[])`, [seqs]);
    for (const r of rows) this.confirmedUnmarked.delete(r.payload.id);
    return rows.length;
  }

  /**
   * publish — the batch on the broker. With tracing on and rows written by traced work, a PRODUCER span
   * `send nodes.events` (a trace of its own: the relay is not part of the request) **links** to each row's creation
   * span, and each message carries its row's context in its headers (docs/observability.md).
   */
  private async publish(rows: readonly { payload: CloudEvent; trace_context: TraceCarrier | null }[]): Promise<void> {
    if (!tracingOn() || !rows.some((r) => r.trace_context)) return this.publisher.publish(rows.map((r) => r.payload));
    const links = rows.flatMap((r) => {
      const context = spanContextFrom(r.trace_context);
      return context ? [{ context, attributes: { [MESSAGING.messageId]: r.payload.id, 'cloudevents.event_type': r.payload.type } }] : [];
    });
    const attributes = {
      [MESSAGING.system]: 'rabbitmq',
      [MESSAGING.operationType]: 'send',
      [MESSAGING.operationName]: 'publish',
      [MESSAGING.destination]: EVENTS_EXCHANGE,
      [MESSAGING.batchCount]: rows.length,
      ...(rows.length === 1 ? { [MESSAGING.messageId]: rows[0]!.payload.id, [MESSAGING.routingKey]: rows[0]!.payload.type } : {}),
      'nodes_manager.outbox': this.outbox.table,
    };
    await inSpan(`send ${EVENTS_EXCHANGE}`, { kind: SpanKind.PRODUCER, attributes, links, parent: ROOT_CONTEXT }, () =>
      this.publisher.publish(
        rows.map((r) => r.payload),
        rows.map((r) => r.trace_context),
      ),
    );
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
