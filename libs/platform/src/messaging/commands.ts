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
  ClientRMQ,
  RmqContext,
  RmqRecordBuilder,
  Server,
  Transport,
  type CustomTransportStrategy,
  type MessageHandler,
  type RmqOptions,
} from '@nestjs/microservices';
import amqp from 'amqplib';
import { firstValueFrom, from, isObservable, lastValueFrom, of, timeout, catchError, map, type Observable } from 'rxjs';
import {
  serviceQueue,
  type CommandMeta,
  type CommandReply,
  type CommandRequest,
  type ServiceName,
} from '@nodes-manager/contracts';
import { CodedError } from '../errors/coded-error.js';
import type { JsonLogger } from '../logging/logger.js';
import { currentRequestId, runWithRequestId } from '../logging/request-context.js';
import { LOGGER, RUNTIME } from '../runtime/tokens.js';
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
    // The handler's async scope is bound when handle() is called, so calling it inside the request context is enough.
    const handled = requestId ? runWithRequestId(requestId, () => next.handle()) : next.handle();
    return handled.pipe(
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

/**
 * RmqCommandBus — request/reply over the Nest RMQ transport. Before sending, it checks that the target queue has
 * a consumer (cached briefly): none means the service is down → SERVICE_UNAVAILABLE (503), instead of a request
 * sitting in a queue until it times out. The message expires with the timeout so a late consumer never acts on
 * a request whose caller has already been told 504.
 */
export class RmqCommandBus implements CommandBus {
  private readonly clients = new Map<ServiceName, ClientRMQ>();
  private readonly presence = new Map<ServiceName, { at: number; consumers: number }>();
  private probe?: amqp.ChannelModel;

  constructor(
    private readonly url: string,
    private readonly defaultTimeoutMs: number,
    private readonly presenceTtlMs = 2000,
  ) {}

  private client(service: ServiceName): ClientRMQ {
    let c = this.clients.get(service);
    if (!c) {
      c = new ClientRMQ({
        urls: [this.url],
        queue: serviceQueue(service),
        queueOptions: COMMAND_QUEUE_OPTIONS,
        persistent: true,
      });
      this.clients.set(service, c);
    }
    return c;
  }

  /** consumers — how many processes consume the service's command queue (0 when the queue does not exist). */
  async consumers(service: ServiceName): Promise<number> {
    const cached = this.presence.get(service);
    if (cached && Date.now() - cached.at < this.presenceTtlMs) return cached.consumers;
    let consumers = 0;
    try {
      this.probe ??= await amqp.connect(this.url);
      const ch = await this.probe.createChannel();
      ch.on('error', () => undefined);
      try {
        consumers = (await ch.checkQueue(serviceQueue(service))).consumerCount;
        await ch.close();
      } catch {
        consumers = 0; // 404: the queue was never declared, the service never ran
      }
    } catch (err) {
      this.probe = undefined;
      throw new CodedError('SERVICE_UNAVAILABLE', 'message broker unavailable', { dependency: 'message broker' }, { cause: err });
    }
    this.presence.set(service, { at: Date.now(), consumers });
    return consumers;
  }

  async send<T>(service: ServiceName, pattern: string, data: unknown, meta: CommandMeta, opts: { timeoutMs?: number } = {}): Promise<T> {
    if ((await this.consumers(service)) === 0) {
      throw new CodedError('SERVICE_UNAVAILABLE', `${service} is not running (no consumer on ${serviceQueue(service)})`, { service });
    }
    const ms = opts.timeoutMs ?? this.defaultTimeoutMs;
    const body: CommandRequest = { meta, data };
    const record = new RmqRecordBuilder(body).setOptions({ expiration: String(ms) }).build();
    try {
      const reply = await firstValueFrom(this.client(service).send<CommandReply<T>>(pattern, record).pipe(timeout(ms)));
      return unwrapReply(reply, service, pattern);
    } catch (err) {
      if (err instanceof CodedError) throw err;
      if ((err as Error)?.name === 'TimeoutError') {
        this.presence.delete(service);
        throw new CodedError('TIMEOUT', `${service} did not answer ${pattern} within ${ms} ms`, { service, timeoutMs: ms });
      }
      throw new CodedError('SERVICE_UNAVAILABLE', `${service} unavailable`, { service }, { cause: err });
    }
  }

  async close(): Promise<void> {
    for (const c of this.clients.values()) await c.close();
    await this.probe?.close().catch(() => undefined);
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
