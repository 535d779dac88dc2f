import { randomUUID } from 'node:crypto';
import type amqp from 'amqplib';
import { commandOwner, serviceQueue, type CommandMeta, type CommandReply, type CommandRequest, type ReplyOf, type RequestOf, type SentPattern, type ServiceName } from '@nodes-manager/contracts';
import type { Clock } from '../clock/clock.js';
import { CodedError } from '../errors/coded-error.js';
import type { JsonLogger } from '../logging/logger.js';
import { describeBrokerError, type AmqpConnection } from './amqp-connection.js';
import { checkRequest } from './command-contracts.js';
import { carrierOf, inChildSpan, MESSAGING, SpanKind, tracingOn, type TraceCarrier } from '../tracing/tracing.js';
import { receivedReply, type CommandBus } from './commands.js';

/** DIRECT_REPLY_TO — RabbitMQ's pseudo-queue for replies on the requesting channel (what Nest's RMQ client uses). */
const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';

/** brokerUnavailable — the 503 while the broker is unreachable: names the dependency, never its address. */
const brokerUnavailable = (why: string) => new CodedError('SERVICE_UNAVAILABLE', `message broker unavailable (${why})`, { dependency: 'message broker' });

/**
 * RmqCommandBus — request/reply over RabbitMQ on the process's one broker connection (docs/reliability.md), in the
 * wire format of the Nest RMQ transport the services consume with (`{pattern, data, id}`, replies by direct
 * reply-to). Before sending, it checks that the target queue has a consumer: none means the service is down →
 * SERVICE_UNAVAILABLE (503), instead of a request sitting in a queue until it times out. A consumer seen is
 * remembered briefly (`presenceTtlMs`); its absence never is, so a service is sent to from the moment it consumes —
 * a caller that started a moment before it is not told for seconds that it is down. The message
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
    private readonly logger?: JsonLogger,
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
    if (consumers > 0) this.presence.set(service, { at: this.clock.now().getTime(), consumers });
    return consumers;
  }

  /**
   * send — with tracing on and a traced caller, the request is a PRODUCER span `send nodes-manager.<service>` (ended
   * with the reply) whose W3C context travels in the message's AMQP headers (docs/observability.md).
   */
  async send<P extends SentPattern>(pattern: P, data: RequestOf<P>, meta: CommandMeta, opts: { timeoutMs?: number } = {}): Promise<ReplyOf<P>> {
    const service = commandOwner(pattern);
    if (!tracingOn()) return this.sendTraced(service, pattern, data, meta, opts);
    const queue = serviceQueue(service);
    const attributes = {
      [MESSAGING.system]: 'rabbitmq',
      [MESSAGING.operationType]: 'send',
      [MESSAGING.operationName]: 'send',
      [MESSAGING.destination]: queue,
      [MESSAGING.routingKey]: queue,
      [MESSAGING.conversationId]: meta.correlationId,
      'nodes_manager.command': pattern,
    };
    return inChildSpan(`send ${queue}`, { kind: SpanKind.PRODUCER, attributes }, (span) => this.sendTraced(service, pattern, data, meta, opts, span ? carrierOf() : undefined));
  }

  private async sendTraced<P extends SentPattern>(service: ServiceName, pattern: P, data: RequestOf<P>, meta: CommandMeta, opts: { timeoutMs?: number }, headers?: TraceCarrier): Promise<ReplyOf<P>> {
    checkRequest(pattern, data);
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
    const reply = new Promise<CommandReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.presence.delete(service);
        reject(new CodedError('TIMEOUT', `${service} did not answer ${pattern} within ${ms} ms`, { service, timeoutMs: ms }));
      }, ms);
      this.pending.set(id, {
        resolve: (r) => (clearTimeout(timer), resolve(r)),
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
        ...(headers ? { headers } : {}),
      });
    } catch (err) {
      this.pending.get(id)?.reject(brokerUnavailable(describeBrokerError(err)));
    }
    return receivedReply(await reply, service, pattern, this.logger);
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

