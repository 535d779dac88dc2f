import { randomBytes } from 'node:crypto';
import type { ConsumeMessage } from 'amqplib';
import { EVENTS_EXCHANGE, type CloudEvent } from '@nodes-manager/contracts';
import { AmqpConnection, type InProcessEventBus, type JsonLogger } from '@nodes-manager/platform';

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
 * AmqpEventFeed — the gateway's own exclusive, auto-deleted queue bound to `nodes.events` with `#`: it lives as long
 * as the gateway's connection, so a stopped gateway leaves nothing behind, and a broker restart or network cut is
 * followed by a new queue (events published while it was away are not in the stream; the client re-reads on
 * `reset`). One consumer on one queue: events reach the hub in the order the broker delivered them.
 */
export class AmqpEventFeed implements EventFeed {
  private readonly connection: AmqpConnection;
  private closed = false;
  private hub?: EventStreamHub;
  private timer?: NodeJS.Timeout;

  constructor(
    url: string,
    private readonly logger: JsonLogger,
    private readonly retryMs = 1000,
  ) {
    this.connection = new AmqpConnection(url, 'nodes-manager/api-gateway-stream', logger);
    this.connection.onLost(() => this.schedule());
  }

  async start(hub: EventStreamHub): Promise<void> {
    this.hub = hub;
    // The gateway starts even while the broker is down: the stream feeds once the broker is back.
    await this.consume().catch(() => this.schedule());
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.consume().catch(() => this.schedule());
    }, this.retryMs);
    this.timer.unref();
  }

  private async consume(): Promise<void> {
    if (this.closed) return;
    const ch = await this.connection.channel();
    const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    await ch.bindQueue(queue, EVENTS_EXCHANGE, '#');
    await ch.prefetch(100);
    await ch.consume(queue, (msg: ConsumeMessage | null) => {
      if (!msg) return;
      try {
        const ev = JSON.parse(msg.content.toString('utf8')) as CloudEvent;
        if (ev && typeof ev.id === 'string' && typeof ev.type === 'string') this.hub?.accept(ev);
      } catch {
        this.logger.debug('stream: skipped a message that is not a CloudEvent');
      }
      try {
        ch.ack(msg);
      } catch {
        /* the channel is gone; the queue went with it */
      }
    });
    this.logger.debug('stream: consuming nodes.events', { queue });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
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
