import { randomBytes } from 'node:crypto';
import type { CloudEvent } from '@nodes-manager/contracts';
import { consumeEvents, type AmqpConnection, type EventConsumer, type InProcessEventBus, type JsonLogger } from '@nodes-manager/platform';

/** StreamedEvent — one event as the stream hands it out: its place in this gateway's feed, and the CloudEvent. */
export interface StreamedEvent {
  /** `<epoch>.<seq>`: the SSE id a client sends back as Last-Event-ID. */
  id: string;
  seq: number;
  event: CloudEvent;
}

/** ReplayResult — what a reconnecting client missed, or that the gap cannot be filled and it must re-read. */
export type ReplayResult = { kind: 'replay'; events: StreamedEvent[] } | { kind: 'reset'; reason: 'gateway_restarted' | 'too_far_behind' | 'unknown_id' };

export type StreamListener = (e: StreamedEvent) => void;

/** How many recent events a gateway keeps for clients that reconnect (Last-Event-ID). */
export const STREAM_REPLAY_EVENTS = 2000;

/**
 * EventStreamHub — the gateway's feed of `nodes.events` for the console's live stream (`GET /api/v1/stream`, see
 * docs/console.md). Events get a sequence number in the order this gateway received them; the last
 * {@link STREAM_REPLAY_EVENTS} are kept so a client that reconnects with `Last-Event-ID` gets what it missed, in
 * order. An id from another epoch (the gateway restarted) or older than the buffer is a `reset`: the client re-reads
 * the API instead of trusting a stream with a hole in it.
 */
export class EventStreamHub {
  /** A random epoch per process: ids of a previous gateway are recognisably not ours. */
  readonly epoch = randomBytes(4).toString('hex');
  private seq = 0;
  private readonly recent: StreamedEvent[] = [];
  private readonly listeners = new Set<StreamListener>();
  private readonly enders = new Map<StreamListener, () => void>();
  private shuttingDown = false;

  get size(): number {
    return this.listeners.size;
  }

  get lastId(): string {
    return `${this.epoch}.${this.seq}`;
  }

  /** accept — one event from the feed: numbered, kept for replay, handed to every open stream. */
  accept(event: CloudEvent): void {
    const seq = ++this.seq;
    const e: StreamedEvent = { id: `${this.epoch}.${seq}`, seq, event };
    this.recent.push(e);
    if (this.recent.length > STREAM_REPLAY_EVENTS) this.recent.shift();
    for (const l of [...this.listeners]) l(e);
  }

  /** listen — an open stream: `fn` gets every event, `end` is called when the gateway shuts down. */
  listen(fn: StreamListener, end?: () => void): () => void {
    this.listeners.add(fn);
    if (end) this.enders.set(fn, end);
    return () => {
      this.listeners.delete(fn);
      this.enders.delete(fn);
    };
  }

  /** True once the gateway shuts down: new streams are refused, so none outlives the HTTP server. */
  get closing(): boolean {
    return this.shuttingDown;
  }

  /** endAll — ends every open stream (shutdown: an open response would keep the HTTP server from closing). */
  endAll(): void {
    this.shuttingDown = true;
    for (const end of [...this.enders.values()]) end();
  }

  /** replaySince — the events after `lastEventId`, or a reset when they cannot all be given. */
  replaySince(lastEventId: string): ReplayResult {
    const m = /^([0-9a-f]{8})\.(\d+)$/.exec(lastEventId);
    if (!m) return { kind: 'reset', reason: 'unknown_id' };
    if (m[1] !== this.epoch) return { kind: 'reset', reason: 'gateway_restarted' };
    const after = Number(m[2]);
    if (after > this.seq) return { kind: 'reset', reason: 'unknown_id' };
    const oldest = this.recent[0]?.seq ?? this.seq + 1;
    if (after < oldest - 1) return { kind: 'reset', reason: 'too_far_behind' };
    return { kind: 'replay', events: this.recent.filter((e) => e.seq > after) };
  }
}

/** EventFeed — where the hub's events come from: the in-process bus, or an exclusive queue on `nodes.events`. */
export interface EventFeed {
  start(hub: EventStreamHub): Promise<void>;
  close(): Promise<void>;
}

/** InProcessEventFeed — all-in-one mode without RabbitMQ: every event published in the process. */
export class InProcessEventFeed implements EventFeed {
  private untap?: () => void;
  constructor(private readonly bus: InProcessEventBus) {}
  async start(hub: EventStreamHub): Promise<void> {
    this.untap = this.bus.tap((e) => hub.accept(e));
  }
  async close(): Promise<void> {
    this.untap?.();
  }
}

/**
 * AmqpEventFeed — `nodes.events` for the hub through the platform's consumer ({@link consumeEvents}) on the process's
 * one broker connection: an exclusive queue bound with `#` that lives as long as the connection and is declared again
 * after a broker restart or network cut (events published while it was away are not in the stream; a client that
 * reconnects across the gap gets a `reset` and re-reads). One consumer on one queue: events reach the hub in the
 * order the broker delivered them.
 */
export class AmqpEventFeed implements EventFeed {
  private consumer?: EventConsumer;

  constructor(
    private readonly connection: AmqpConnection,
    private readonly logger: JsonLogger,
  ) {}

  /** start — the gateway starts even while the broker is down: the stream feeds once the broker is back. */
  async start(hub: EventStreamHub): Promise<void> {
    this.consumer = await consumeEvents(this.connection, ['#'], (e) => hub.accept(e), { logger: this.logger });
  }

  async close(): Promise<void> {
    await this.consumer?.close();
    await this.connection.close();
  }
}

/** EventFeedRunner — starts the gateway's feed with the app and closes it on shutdown (open streams end with it). */
export class EventFeedRunner {
  constructor(
    readonly hub: EventStreamHub,
    private readonly feed: EventFeed,
  ) {}
  async onModuleInit(): Promise<void> {
    await this.feed.start(this.hub);
  }
  /** Before the HTTP server closes: clients see the stream end and reconnect to the next gateway. */
  beforeApplicationShutdown(): void {
    this.hub.endAll();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.feed.close();
  }
}
