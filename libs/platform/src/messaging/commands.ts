import { randomUUID } from 'node:crypto';
import {
  Controller,
  Inject,
  Injectable,
  Optional,
  UseInterceptors,
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import {
  RmqContext,
  Server,
  ServerRMQ,
  Transport,
  type CustomTransportStrategy,
  type MessageHandler,
  type RmqOptions,
} from '@nestjs/microservices';
import amqp from 'amqplib';
import { finalize, from, isObservable, lastValueFrom, of, timeout, catchError, map, type Observable } from 'rxjs';
import {
  serviceQueue,
  type CommandMeta,
  type CommandReply,
  type CommandRequest,
  type ServiceName,
} from '@nodes-manager/contracts';
import type { Clock } from '../clock/clock.js';
import { CodedError } from '../errors/coded-error.js';
import type { JsonLogger } from '../logging/logger.js';
import { currentRequestId, runWithRequestId } from '../logging/request-context.js';
import { LOGGER, RUNTIME } from '../runtime/tokens.js';
import { describeBrokerError, type AmqpConnection } from './amqp-connection.js';
import type { Runtime } from '../runtime/runtime.js';

/**
 * Command queue options, shared by server and client: both assert the queue and different options close the
 * channel with 406 PRECONDITION_FAILED (docs/stack.md), so they live in one constant.
 */
export const COMMAND_QUEUE_OPTIONS = { durable: true } as const;
export const COMMAND_PREFETCH = 20;

/** rmqServerOptions — the RMQ transport with the defaults that lose messages turned off. */
export function rmqServerOptions(service: ServiceName, url: string): RmqOptions {
  return {
    transport: Transport.RMQ,
    options: {
      urls: [url],
      queue: serviceQueue(service),
      queueOptions: COMMAND_QUEUE_OPTIONS,
      noAck: false,
      prefetchCount: COMMAND_PREFETCH,
      persistent: true,
    },
  };
}

/**
 * CommandIntake — the commands this process is handling right now, so a shutdown can stop taking new ones and
 * wait (bounded) for those in flight to answer before it closes anything.
 */
export class CommandIntake {
  private inFlight = 0;
  private readonly idle: (() => void)[] = [];
  get active(): number {
    return this.inFlight;
  }
  enter(): void {
    this.inFlight++;
  }
  leave(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight === 0) for (const f of this.idle.splice(0)) f();
  }
  /** whenIdle — resolves true once nothing is in flight, false when `ms` pass first. */
  whenIdle(ms: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      this.idle.push(() => (clearTimeout(t), resolve(true)));
    });
  }
}
/** commandIntake — the process's one intake (every service module in an all-in-one process shares it). */
export const commandIntake = new CommandIntake();

/**
 * DrainableServerRmq — Nest's RMQ server with a known consumer tag, so shutdown can cancel the consumer (no new
 * command is delivered to this process; the broker gives queued ones to another replica) while handlers in flight
 * still reply on the open channel.
 */
export class DrainableServerRmq extends ServerRMQ {
  private raw?: amqp.Channel;
  private stopping = false;
  private readonly tag: string;
  constructor(options: RmqOptions['options']) {
    const tag = `${options?.queue ?? 'commands'}.${randomUUID()}`;
    super({ ...options, consumerTag: tag });
    this.tag = tag;
  }
  override async setupChannel(channel: amqp.Channel, callback: () => void): Promise<void> {
    this.raw = channel;
    channel.on('error', () => undefined);
    if (this.stopping) return callback();
    return super.setupChannel(channel, callback);
  }
  /**
   * sendMessage — the reply to a command. Nest publishes it on its confirm channel without waiting for the result, so
   * a broker connection lost before the confirm (a reset, a cut) rejected that publish with nobody to catch it and
   * ended the process ("channel closed"). The lost reply is logged; the caller's wait ends in its command timeout.
   */
  override sendMessage<T = unknown>(message: T, replyTo: string, correlationId: string, _context: RmqContext): void {
    const outgoing = this.serializer.serialize(message as never) as Record<string, unknown> & { options?: Record<string, unknown> };
    const { options, ...packet } = outgoing;
    void Promise.resolve(this.channel?.sendToQueue(replyTo, Buffer.from(JSON.stringify(packet)), { correlationId, ...options })).catch((err: Error) =>
      this.logger.warn(`reply to ${correlationId} lost with the broker connection: ${err.message}`),
    );
  }
  /** stopIntake — cancels the consumer; deliveries already received are still handled and answered. */
  async stopIntake(): Promise<void> {
    this.stopping = true;
    await this.raw?.cancel(this.tag).catch(() => undefined);
  }
}

/** rmqServer — the RMQ command server of a service, as a strategy for `connectMicroservice`. */
export function rmqServer(service: ServiceName, url: string): DrainableServerRmq {
  return new DrainableServerRmq(rmqServerOptions(service, url).options);
}

/**
 * CommandReplyInterceptor — every command handler's reply becomes a {@link CommandReply} (data or a coded error,
 * never a transport-level exception), and the RMQ delivery is acknowledged once the reply is produced. The handler
 * runs with the command's `meta.requestId`, so its log lines carry the id of the HTTP request it serves; one line per
 * command (`command handled`, debug for readiness probes) records the outcome and the time taken.
 */
@Injectable()
export class CommandReplyInterceptor implements NestInterceptor {
  constructor(
    @Optional() @Inject(RUNTIME) private readonly runtime?: Runtime,
    @Optional() @Inject(LOGGER) private readonly logger?: JsonLogger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<CommandReply> {
    const rpc = context.switchToRpc().getContext();
    const started = process.hrtime.bigint();
    const pattern = String(context.getHandler().name);
    const command = context.switchToRpc().getData() as Partial<CommandRequest> | undefined;
    const requestId = command?.meta?.requestId;
    const service = this.logger?.service ?? 'unknown';
    const observe = (outcome: string) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.runtime?.metrics
        .histogram('nodes_manager_command_duration_seconds', 'Command handling time by handler and outcome', ['handler', 'outcome'], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        .observe({ service, handler: pattern, outcome }, seconds);
      const fields = { handler: pattern, outcome, durationMs: Math.round(seconds * 1e4) / 10, ...(command?.meta?.actor ? { actor: command.meta.actor } : {}) };
      const log = () => (pattern === 'status' ? this.logger?.debug('command handled', fields) : this.logger?.info('command handled', fields));
      if (requestId && currentRequestId() !== requestId) runWithRequestId(requestId, log);
      else log();
    };
    const ack = () => {
      if (rpc instanceof RmqContext) {
        const ch = rpc.getChannelRef() as amqp.Channel;
        try {
          ch.ack(rpc.getMessage() as amqp.Message);
        } catch {
          /* channel gone: the broker redelivers, the handler must be idempotent */
        }
      }
    };
    commandIntake.enter();
    // The handler's async scope is bound when handle() is called, so calling it inside the request context is enough.
    const handled = requestId ? runWithRequestId(requestId, () => next.handle()) : next.handle();
    return handled.pipe(
      finalize(() => commandIntake.leave()),
      map((data): CommandReply => {
        ack();
        observe('ok');
        return { ok: true, data: data ?? null };
      }),
      catchError((err) => {
        ack();
        const coded = CodedError.from(err);
        const body = coded.toBody();
        // An unexpected failure answers the generic body: what really happened goes to this service's log.
        if (coded.cause !== undefined) {
          const cause = coded.cause as Error;
          const meta = (context.switchToRpc().getData() as Partial<CommandRequest> | undefined)?.meta;
          this.logger?.error('command failed', { handler: pattern, code: body.code, requestId, correlationId: meta?.correlationId, err: cause?.message ?? String(cause), stack: cause?.stack });
        }
        observe(body.code);
        return of<CommandReply>({ ok: false, error: body });
      }),
    );
  }
}

/** CommandController — a controller of `@MessagePattern` command handlers, with coded replies and acks. */
export const CommandController = () => applyDecorators(Controller(), UseInterceptors(CommandReplyInterceptor));

/** CommandBus — sends a command to the service that owns it; rejects with a CodedError. */
export interface CommandBus {
  send<T>(service: ServiceName, pattern: string, data: unknown, meta: CommandMeta, opts?: { timeoutMs?: number }): Promise<T>;
  close(): Promise<void>;
}
export const COMMAND_BUS = Symbol('COMMAND_BUS');

export const newMeta = (actor: string, correlationId: string = randomUUID()): CommandMeta => ({ actor, correlationId });

function unwrapReply<T>(reply: CommandReply<T> | undefined, service: ServiceName, pattern: string): T {
  if (!reply || typeof reply !== 'object' || !('ok' in reply)) {
    throw new CodedError('UPSTREAM_ERROR', `${service} gave a malformed reply to ${pattern}`);
  }
  if (reply.ok) return reply.data;
  throw new CodedError(reply.error.code, reply.error.message, reply.error.details);
}

/** DIRECT_REPLY_TO — RabbitMQ's pseudo-queue for replies on the requesting channel (what Nest's RMQ client uses). */
const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';

/** brokerUnavailable — the 503 while the broker is unreachable: names the dependency, never its address. */
const brokerUnavailable = (why: string) => new CodedError('SERVICE_UNAVAILABLE', `message broker unavailable (${why})`, { dependency: 'message broker' });

/**
 * RmqCommandBus — request/reply over RabbitMQ on the process's one broker connection (docs/reliability.md), in the
 * wire format of the Nest RMQ transport the services consume with (`{pattern, data, id}`, replies by direct
 * reply-to). Before sending, it checks that the target queue has a consumer (cached briefly): none means the service
 * is down → SERVICE_UNAVAILABLE (503), instead of a request sitting in a queue until it times out. The message
 * expires with the timeout so a late consumer never acts on a request whose caller has already been told 504.
 * A broker that is unreachable, or a connection lost while a request waits, is a 503 that names the broker.
 * The presence cache ages on the injected clock.
 */
export class RmqCommandBus implements CommandBus {
  private readonly presence = new Map<ServiceName, { at: number; consumers: number }>();
  private readonly pending = new Map<string, { resolve: (r: CommandReply) => void; reject: (e: Error) => void }>();
  private replies?: amqp.Channel;
  private opening?: Promise<amqp.Channel>;

  constructor(
    private readonly broker: AmqpConnection,
    private readonly defaultTimeoutMs: number,
    private readonly clock: Clock,
    private readonly presenceTtlMs = 2000,
  ) {}

  /** replyChannel — the channel requests go out on and replies come back to; reopened after a loss. */
  private async replyChannel(): Promise<amqp.Channel> {
    if (this.replies) return this.replies;
    this.opening ??= (async () => {
      const ch = await this.broker.openChannel();
      ch.on('close', () => {
        if (this.replies !== ch) return;
        this.replies = undefined;
        for (const [id, p] of this.pending) {
          this.pending.delete(id);
          p.reject(brokerUnavailable('connection lost while waiting for the reply'));
        }
      });
      await ch.consume(DIRECT_REPLY_TO, (msg) => msg && this.onReply(msg), { noAck: true });
      this.replies = ch;
      return ch;
    })().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private onReply(msg: amqp.ConsumeMessage): void {
    const id = msg.properties.correlationId as string | undefined;
    const p = id ? this.pending.get(id) : undefined;
    if (!p || !id) return;
    let packet: { err?: unknown; response?: CommandReply; isDisposed?: boolean };
    try {
      packet = JSON.parse(msg.content.toString('utf8'));
    } catch {
      return;
    }
    // Nest sends the value, then `{isDisposed: true}` when the handler's observable completes.
    if (packet.err !== undefined && packet.err !== null) {
      this.pending.delete(id);
      p.reject(new CodedError('UPSTREAM_ERROR', typeof packet.err === 'string' ? packet.err : 'the service failed the command'));
    } else if (packet.response !== undefined) {
      this.pending.delete(id);
      p.resolve(packet.response);
    } else if (packet.isDisposed) {
      this.pending.delete(id);
      p.resolve(undefined as unknown as CommandReply);
    }
  }

  /** consumers — how many processes consume the service's command queue (0 when the queue does not exist). */
  async consumers(service: ServiceName): Promise<number> {
    const cached = this.presence.get(service);
    if (cached && this.clock.now().getTime() - cached.at < this.presenceTtlMs) return cached.consumers;
    let ch: amqp.Channel;
    try {
      ch = await this.broker.openChannel();
    } catch (err) {
      throw brokerUnavailable(describeBrokerError(err));
    }
    let consumers = 0;
    try {
      consumers = (await ch.checkQueue(serviceQueue(service))).consumerCount;
      await ch.close().catch(() => undefined);
    } catch {
      consumers = 0; // 404 closes the channel: the queue was never declared, the service never ran
    }
    this.presence.set(service, { at: this.clock.now().getTime(), consumers });
    return consumers;
  }

  async send<T>(service: ServiceName, pattern: string, data: unknown, meta: CommandMeta, opts: { timeoutMs?: number } = {}): Promise<T> {
    if ((await this.consumers(service)) === 0) {
      throw new CodedError('SERVICE_UNAVAILABLE', `${service} is not running (no consumer on ${serviceQueue(service)})`, { service });
    }
    const ms = opts.timeoutMs ?? this.defaultTimeoutMs;
    let ch: amqp.Channel;
    try {
      ch = await this.replyChannel();
    } catch (err) {
      throw brokerUnavailable(describeBrokerError(err));
    }
    const id = randomUUID();
    const body: CommandRequest = { meta, data };
    const reply = new Promise<CommandReply<T>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.presence.delete(service);
        reject(new CodedError('TIMEOUT', `${service} did not answer ${pattern} within ${ms} ms`, { service, timeoutMs: ms }));
      }, ms);
      this.pending.set(id, {
        resolve: (r) => (clearTimeout(timer), resolve(r as CommandReply<T>)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
    try {
      ch.sendToQueue(serviceQueue(service), Buffer.from(JSON.stringify({ pattern, data: body, id })), {
        replyTo: DIRECT_REPLY_TO,
        correlationId: id,
        persistent: true,
        expiration: String(ms),
        contentType: 'application/json',
      });
    } catch (err) {
      this.pending.get(id)?.reject(brokerUnavailable(describeBrokerError(err)));
    }
    return unwrapReply(await reply, service, pattern);
  }

  async close(): Promise<void> {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(brokerUnavailable('shutting down'));
    }
    const ch = this.replies;
    this.replies = undefined;
    await ch?.close().catch(() => undefined);
    await this.broker.close();
  }
}

/** InProcessRegistry — command handlers of every service module in this process (all-in-one mode). */
export class InProcessRegistry {
  readonly handlers = new Map<string, MessageHandler>();
}

/**
 * InProcessTransport — a Nest custom transport that exposes `@MessagePattern` handlers to an
 * {@link InProcessCommandBus} in the same process. The same controllers, interceptors and pipes run as over RMQ.
 */
export class InProcessTransport extends Server implements CustomTransportStrategy {
  constructor(private readonly registry: InProcessRegistry) {
    super();
  }
  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) this.registry.handlers.set(pattern, handler);
    callback();
  }
  close(): void {}
  on(): void {}
  unwrap<T>(): T {
    return this.registry as T;
  }
}

export class InProcessCommandBus implements CommandBus {
  constructor(
    private readonly registry: InProcessRegistry,
    private readonly defaultTimeoutMs: number,
  ) {}
  async send<T>(service: ServiceName, pattern: string, data: unknown, meta: CommandMeta, opts: { timeoutMs?: number } = {}): Promise<T> {
    const handler = this.registry.handlers.get(pattern);
    if (!handler) throw new CodedError('SERVICE_UNAVAILABLE', `${service} is not running in this process (${pattern})`, { service });
    const ms = opts.timeoutMs ?? this.defaultTimeoutMs;
    const body: CommandRequest = { meta, data };
    const out = await handler(body, undefined);
    const obs = isObservable(out) ? out : from(Promise.resolve(out));
    try {
      const reply = await lastValueFrom((obs as Observable<CommandReply<T>>).pipe(timeout(ms)));
      return unwrapReply(reply, service, pattern);
    } catch (err) {
      if (err instanceof CodedError) throw err;
      if ((err as Error)?.name === 'TimeoutError') throw new CodedError('TIMEOUT', `${service} did not answer ${pattern} within ${ms} ms`);
      throw CodedError.from(err);
    }
  }
  async close(): Promise<void> {}
}
