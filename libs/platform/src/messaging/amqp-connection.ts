import amqp from 'amqplib';
import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import { EVENTS_EXCHANGE } from '@nodes-manager/contracts';
import type { JsonLogger } from '../logging/logger.js';
import type { CheckResult } from '../health/health.js';

/** BROKER_HEARTBEAT_SECONDS — AMQP heartbeat: a black-holed link is noticed after two missed beats (≈ 2 × this). */
export const BROKER_HEARTBEAT_SECONDS = 5;
/** Reconnection back-off: 250 ms doubling up to this. */
const MAX_RECONNECT_MS = 5_000;

/** ChannelSetup — run on every new channel (the first and each one after a reconnection): consumers, bindings. */
export type ChannelSetup = (ch: ConfirmChannel) => Promise<void>;

/**
 * AmqpConnection — the process's one broker connection (docs/reliability.md): a confirm channel for events, extra
 * channels on the same connection for the command bus, and every reconnection in one place. Every connection and
 * channel it opens has an `error` listener, so a reset, a cut or a closed channel never crashes the process; the
 * loss is logged and the registered {@link ChannelSetup}s run again on the next channel, which is opened in the
 * background with back-off (and the outbox relay told at once when it is back). Callers that fail meanwhile retry
 * later (the outbox keeps their events).
 *
 * Several users in one process (all-in-one: every service module; split: platform, command bus, gateway) share it
 * through {@link retain}; {@link close} closes it when the last user is done.
 */
export class AmqpConnection {
  private conn?: ChannelModel;
  private ch?: ConfirmChannel;
  private opening?: Promise<ConfirmChannel>;
  private closed = false;
  private users = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private attempt = 0;
  private readonly setups: ChannelSetup[] = [];
  private readonly lostListeners: (() => void)[] = [];
  private readonly restoredListeners: (() => void)[] = [];
  /** Why the last attempt to reach the broker failed, for readiness ("degraded: broker"). */
  lastError?: string;

  constructor(
    readonly url: string,
    private readonly name: string,
    private readonly logger?: JsonLogger,
  ) {}

  get connected(): boolean {
    return this.ch !== undefined;
  }

  /** retain — one more user; each user calls {@link close} once. */
  retain(): this {
    this.users++;
    return this;
  }

  async channel(): Promise<ConfirmChannel> {
    if (this.ch) return this.ch;
    if (this.closed) throw new Error('broker connection closed');
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  /** openChannel — a plain channel on the same connection (command replies, presence probes); error listener set. */
  async openChannel(): Promise<Channel> {
    await this.channel();
    const conn = this.conn;
    if (!conn) throw new Error('broker connection lost');
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    return ch;
  }

  /**
   * addSetup — runs `setup` on the current channel (opening one if needed) and again on every channel after a
   * reconnection. When the broker is unreachable now, the setup runs once it is back; this never throws for that.
   * Returns the way to stop running it on later channels.
   */
  async addSetup(setup: ChannelSetup): Promise<() => void> {
    this.setups.push(setup);
    const remove = () => void (this.setups.includes(setup) && this.setups.splice(this.setups.indexOf(setup), 1));
    try {
      const had = this.ch;
      const ch = await this.channel();
      // A channel opened just now ran every setup (this one included); only an existing one needs it here.
      if (had === ch) await setup(ch);
    } catch (err) {
      this.lastError = (err as Error).message;
      this.logger?.warn('broker unreachable; consumer will start when it is back', { connection: this.name, err: this.lastError });
      this.scheduleReconnect();
    }
    return remove;
  }

  private async open(): Promise<ConfirmChannel> {
    try {
      const conn = this.conn ?? (await this.connect());
      const ch = await conn.createConfirmChannel();
      ch.on('error', () => undefined);
      ch.on('close', () => {
        if (this.ch !== ch) return;
        this.ch = undefined;
        if (this.closed) return;
        for (const l of this.lostListeners) l();
        this.scheduleReconnect();
      });
      await declareTopology(ch);
      for (const setup of this.setups) await setup(ch);
      if (this.closed) {
        await conn.close().catch(() => undefined);
        throw new Error('broker connection closed');
      }
      this.ch = ch;
      const restored = this.lastError !== undefined;
      this.lastError = undefined;
      this.attempt = 0;
      if (restored) {
        this.logger?.info('broker connection restored', { connection: this.name });
        for (const l of this.restoredListeners) l();
      }
      return ch;
    } catch (err) {
      this.lastError = (err as Error).message;
      // A half-made connection (a setup failed) is dropped whole so the next attempt starts clean.
      const c = this.conn;
      this.conn = undefined;
      await c?.close().catch(() => undefined);
      throw err;
    }
  }

  private async connect(): Promise<ChannelModel> {
    const url = new URL(this.url);
    if (!url.searchParams.has('heartbeat')) url.searchParams.set('heartbeat', String(BROKER_HEARTBEAT_SECONDS));
    const conn = await amqp.connect(url.toString(), { clientProperties: { connection_name: this.name }, timeout: 10_000 });
    conn.on('error', (err: Error) => (this.lastError = err.message));
    conn.on('close', () => {
      if (this.conn !== conn) return;
      this.conn = undefined;
      this.ch = undefined;
      if (this.closed) return;
      this.lastError ??= 'connection closed';
      this.logger?.warn('broker connection lost', { connection: this.name, err: this.lastError });
      for (const l of this.lostListeners) l();
      this.scheduleReconnect();
    });
    this.conn = conn;
    return conn;
  }

  /** scheduleReconnect — reopen in the background (with back-off), so setups and the relay resume on their own. */
  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const ms = Math.min(MAX_RECONNECT_MS, 250 * 2 ** Math.min(this.attempt++, 6));
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.closed || this.ch) return;
      this.channel().catch(() => this.scheduleReconnect());
    }, ms);
    this.reconnectTimer.unref();
  }

  /** onLost — called when the open channel or connection goes away (broker restart, reset, network cut). */
  onLost(fn: () => void): void {
    this.lostListeners.push(fn);
  }

  /** onRestored — called when a channel opens again after the broker was unreachable (the outbox relays at once). */
  onRestored(fn: () => void): void {
    this.restoredListeners.push(fn);
  }

  /** close — one user is done; the connection closes when the last one is (or at once when never retained). */
  async close(): Promise<void> {
    if (this.users > 1) {
      this.users--;
      return;
    }
    this.users = 0;
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const c = this.conn;
    this.conn = undefined;
    this.ch = undefined;
    await c?.close().catch(() => undefined);
  }
}

/** declareTopology — the durable exchange every publisher and the gateway's live stream rely on. */
export async function declareTopology(ch: { assertExchange: ConfirmChannel['assertExchange'] }): Promise<void> {
  await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
}

/** describeBrokerError — why the broker cannot be used, without host or port (those stay in the logs). */
export function describeBrokerError(err: unknown): string {
  const code = (err as { code?: string })?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset';
  if (code === 'ETIMEDOUT') return 'connection timed out';
  const msg = (err as Error)?.message ?? String(err);
  return /\d+\.\d+\.\d+\.\d+|:\d{2,5}\b/.test(msg) ? 'unreachable' : msg;
}

/**
 * brokerCheck — the readiness check `<service>.broker`: degraded, not unready, while the broker is unreachable
 * (events wait in the outbox, commands answer 503 naming the broker), so `/readyz` says `degraded: broker`.
 */
export async function brokerCheck(conn: AmqpConnection, waitMs = 2_000): Promise<CheckResult> {
  if (conn.connected) return { ok: true };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      conn.channel(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer from the broker')), waitMs))),
    ]);
    return { ok: true };
  } catch (err) {
    return { ok: false, degraded: true, detail: `broker unreachable (${describeBrokerError(err)})` };
  } finally {
    clearTimeout(timer);
  }
}
