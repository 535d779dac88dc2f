import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { from, isObservable, lastValueFrom, timeout, type Observable } from 'rxjs';
import { commandOwner, type CommandMeta, type CommandReply, type CommandRequest, type ReplyOf, type RequestOf, type SentPattern, type ServiceName } from '@nodes-manager/contracts';
import { CodedError } from '../errors/coded-error.js';
import type { JsonLogger } from '../logging/logger.js';
import { checkRequest } from './command-contracts.js';
import { receivedReply, type CommandBus } from './commands.js';

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
    private readonly logger?: JsonLogger,
  ) {}
  async send<P extends SentPattern>(pattern: P, data: RequestOf<P>, meta: CommandMeta, opts: { timeoutMs?: number } = {}): Promise<ReplyOf<P>> {
    const service = commandOwner(pattern);
    checkRequest(pattern, data);
    const handler = this.registry.handlers.get(pattern);
    if (!handler) throw new CodedError('SERVICE_UNAVAILABLE', `${service} is not running in this process (${pattern})`, { service });
    const ms = opts.timeoutMs ?? this.defaultTimeoutMs;
    const body: CommandRequest = { meta, data };
    const out = await handler(body, undefined);
    const obs = isObservable(out) ? out : from(Promise.resolve(out));
    try {
      const reply = await lastValueFrom((obs as Observable<CommandReply>).pipe(timeout(ms)));
      return receivedReply(reply, service, pattern, this.logger);
    } catch (err) {
      if (err instanceof CodedError) throw err;
      if ((err as Error)?.name === 'TimeoutError') throw new CodedError('TIMEOUT', `${service} did not answer ${pattern} within ${ms} ms`);
      throw CodedError.from(err);
    }
  }
  async close(): Promise<void> {}
}
