import { randomUUID } from 'node:crypto';
import {
  Controller,
  Inject,
  Injectable,
  Optional,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { MessagePattern, RmqContext, ServerRMQ, Transport, type RmqOptions } from '@nestjs/microservices';
import amqp from 'amqplib';
import type { AmqpConnectionManager } from 'amqp-connection-manager';
import { catchError, finalize, map, of, throwError, type Observable } from 'rxjs';
import {
  serviceQueue,
  type CommandMeta,
  type CommandReply,
  type CommandRequest,
  type ReplyOf,
  type RequestOf,
  type SentPattern,
  type ServiceName,
} from '@nodes-manager/contracts';
import { CodedError, INTERNAL_MESSAGE } from '../errors/coded-error.js';
import type { JsonLogger } from '../logging/logger.js';
import { currentRequestId, runWithRequestId } from '../logging/request-context.js';
import { LOGGER, RUNTIME } from '../runtime/tokens.js';
import { asWire, catalogueName, checkReply, checkRequest, ReplyContractError, replyProblems, SCHEMAS_DIGEST } from './command-contracts.js';
import type { Runtime } from '../runtime/runtime.js';
import { contextFrom, contextWithSpan, hasRemoteParent, MESSAGING, SpanKind, SpanStatusCode, startSpan, tracedContext, tracingOn, withContext, type Span } from '../tracing/tracing.js';

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
  /**
   * createClient — Nest's connection manager, with an `error` listener on every channel wrapper it makes. A wrapper
   * emits `error` when its setup fails — the broker connection reset while the queue was being asserted or the
   * consumer started ("Channel ended, no reply will be forthcoming") — and with no listener that ended the process.
   * The wrapper sets the channel up again on the next connection; the failure is logged.
   */
  override async createClient<T = AmqpConnectionManager>(): Promise<T> {
    const client = await super.createClient<AmqpConnectionManager>();
    const createChannel = client.createChannel.bind(client);
    client.createChannel = (options) =>
      createChannel(options).on('error', (err: Error) => this.logger.warn(`command channel setup failed (${err.message}); it is set up again on the next connection`));
    return client as T;
  }
  /**
   * setupChannel — the command queue asserted, the prefetch set and the consumer started, each awaited. Nest's own
   * setup does not await its `consume`, so a connection reset while the consumer was being started left a rejected
   * promise that ended the process; here that failure is the setup's, and {@link createClient}'s listener logs it.
   */
  override async setupChannel(channel: amqp.Channel, callback: () => void): Promise<void> {
    this.raw = channel;
    channel.on('error', () => undefined);
    if (this.stopping) return callback();
    await channel.assertQueue(this.queue, this.queueOptions);
    await channel.prefetch(COMMAND_PREFETCH, false);
    await channel.consume(this.queue, (msg) => void this.handleMessage(msg as amqp.Message, channel).catch((err: unknown) => this.handleError(String(err))), {
      noAck: this.noAck,
      consumerTag: this.tag,
    });
    callback();
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

/** COMMAND_PATTERN — the metadata key under which {@link CommandHandler} records its pattern. */
export const COMMAND_PATTERN = 'nodes-manager:command-pattern';

/**
 * CommandHandler — declares a command handler: Nest's `@MessagePattern` for a pattern of the command catalogue
 * (libs/contracts COMMAND_SCHEMAS), so that its request and reply are checked against their schemas by
 * {@link CommandReplyInterceptor}. The one way a handler is declared (test/architecture/typed-commands.spec.ts).
 */
export const CommandHandler = (pattern: SentPattern): MethodDecorator => applyDecorators(MessagePattern(pattern), SetMetadata(COMMAND_PATTERN, pattern));

/**
 * CommandReplyInterceptor — every command handler's reply becomes a {@link CommandReply} (data or a coded error,
 * never a transport-level exception), and the RMQ delivery is acknowledged once the reply is produced. The request is
 * checked against its command's schema before the handler runs (VALIDATION_FAILED naming the field); the reply, as it
 * travels (JSON), after — a reply that breaks its schema is logged as an error and answered INTERNAL. The handler
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
    const handler = String(context.getHandler().name);
    const pattern = Reflect.getMetadata(COMMAND_PATTERN, context.getHandler()) as string | undefined;
    const command = context.switchToRpc().getData() as Partial<CommandRequest> | undefined;
    const requestId = command?.meta?.requestId;
    const service = this.logger?.service ?? 'unknown';
    const observe = (outcome: string) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.runtime?.metrics
        .histogram('nodes_manager_command_duration_seconds', 'Command handling time by handler and outcome', ['handler', 'outcome'], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        .observe({ service, handler, outcome }, seconds);
      const fields = { handler, outcome, durationMs: Math.round(seconds * 1e4) / 10, ...(command?.meta?.actor ? { actor: command.meta.actor } : {}) };
      const log = () => (handler === 'status' ? this.logger?.debug('command handled', fields) : this.logger?.info('command handled', fields));
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
    const logged = (fn: () => void) => (requestId && currentRequestId() !== requestId ? runWithRequestId(requestId, fn) : fn());
    const span = tracingOn() ? commandSpan(rpc, service, pattern ?? handler, command) : undefined;
    commandIntake.enter();
    let handled: Observable<unknown>;
    try {
      if (!pattern) throw new CodedError('INTERNAL', `handler ${handler} was not declared with @CommandHandler: an untyped command is refused`);
      catalogueName(pattern);
      if (command) command.data ??= {};
      checkRequest(pattern, command?.data);
      // The handler's async scope is bound when handle() is called, so calling it inside the request context is enough.
      const handle = () => (requestId ? runWithRequestId(requestId, () => next.handle()) : next.handle());
      handled = span ? withContext(contextWithSpan(span), handle) : handle();
    } catch (err) {
      if ((err as CodedError).code === 'INTERNAL') logged(() => this.logger?.error('command refused: it has no schema', { handler, command: pattern, err: (err as Error).message }));
      handled = throwError(() => err);
    }
    return handled.pipe(
      finalize(() => {
        commandIntake.leave();
        span?.end();
      }),
      map((data): CommandReply => {
        const wire = asWire(data);
        const problems = replyProblems(pattern!, wire);
        if (problems.length) {
          logged(() => this.logger?.error('command reply breaks its schema', { handler, command: pattern, problems }));
          throw new CodedError('INTERNAL', INTERNAL_MESSAGE, undefined, { cause: new ReplyContractError(service, pattern!, problems) });
        }
        ack();
        observe('ok');
        return { ok: true, data: wire, checked: SCHEMAS_DIGEST };
      }),
      catchError((err) => {
        ack();
        const coded = CodedError.from(err);
        const body = coded.toBody();
        // An unexpected failure answers the generic body: what really happened goes to this service's log.
        if (coded.cause !== undefined) {
          const cause = coded.cause as Error;
          const meta = command?.meta;
          this.logger?.error('command failed', { handler, code: body.code, requestId, correlationId: meta?.correlationId, err: cause?.message ?? String(cause), stack: cause?.stack });
        }
        observe(body.code);
        span?.setAttribute('nodes_manager.outcome', body.code);
        if (coded.cause !== undefined) span?.setStatus({ code: SpanStatusCode.ERROR, message: body.code });
        return of<CommandReply>({ ok: false, error: body });
      }),
    );
  }
}

/**
 * commandSpan — the CONSUMER span `process nodes-manager.<service>` of a command whose message carries a trace
 * context in its AMQP headers (in one process, the caller's active trace); none for an untraced command (a readiness
 * probe, a timer's), so only requests are traced.
 */
function commandSpan(rpc: unknown, service: string, pattern: string, command: Partial<CommandRequest> | undefined): Span | undefined {
  let parent = tracedContext();
  if (rpc instanceof RmqContext) {
    const headers = (rpc.getMessage() as amqp.Message).properties.headers;
    parent = hasRemoteParent(headers) ? contextFrom(headers) : undefined;
  }
  if (!parent) return undefined;
  const queue = serviceQueue(service as ServiceName);
  return startSpan(`process ${queue}`, {
    kind: SpanKind.CONSUMER,
    parent,
    attributes: {
      [MESSAGING.system]: 'rabbitmq',
      [MESSAGING.operationType]: 'process',
      [MESSAGING.operationName]: 'process',
      [MESSAGING.destination]: queue,
      ...(command?.meta?.correlationId ? { [MESSAGING.conversationId]: command.meta.correlationId } : {}),
      'nodes_manager.command': pattern,
      ...(command?.meta?.actor ? { 'enduser.id': command.meta.actor } : {}),
    },
  });
}

/** CommandController — a controller of `@MessagePattern` command handlers, with coded replies and acks. */
export const CommandController = () => applyDecorators(Controller(), UseInterceptors(CommandReplyInterceptor));

/**
 * CommandBus — sends a command to the service that owns it (derived from the pattern), typed by pattern (libs/contracts CommandTypes): the
 * request is checked against its schema before it travels and the reply after it arrives
 * (command-contracts.ts); rejects with a CodedError.
 */
export interface CommandBus {
  /** send — to the service that answers `pattern` (libs/contracts `commandOwner`). */
  send<P extends SentPattern>(pattern: P, data: RequestOf<P>, meta: CommandMeta, opts?: { timeoutMs?: number }): Promise<ReplyOf<P>>;
  close(): Promise<void>;
}
export const COMMAND_BUS = Symbol('COMMAND_BUS');

export const newMeta = (actor: string, correlationId: string = randomUUID()): CommandMeta => ({ actor, correlationId });

/**
 * receivedReply — the data of a reply as the caller gets it: a coded error is thrown as such; data that breaks the
 * command's reply schema is a {@link ReplyContractError} (UPSTREAM_ERROR), logged as an error here too. A reply its
 * handler checked against the same schemas (`checked` = SCHEMAS_DIGEST) is not checked twice.
 */
export function receivedReply<P extends SentPattern>(reply: CommandReply | undefined, service: ServiceName, pattern: P, logger?: JsonLogger): ReplyOf<P> {
  if (!reply || typeof reply !== 'object' || !('ok' in reply)) {
    throw new CodedError('UPSTREAM_ERROR', `${service} gave a malformed reply to ${pattern}`);
  }
  if (!reply.ok) throw new CodedError(reply.error.code, reply.error.message, reply.error.details);
  // Checked by its handler against these very schemas: checking again would find the same.
  if (reply.checked === SCHEMAS_DIGEST) return reply.data as ReplyOf<P>;
  try {
    checkReply(service, pattern, reply.data);
  } catch (err) {
    if (err instanceof ReplyContractError) logger?.error('command reply breaks its schema', { service, command: pattern, problems: err.problems });
    throw err;
  }
  return reply.data as ReplyOf<P>;
}
