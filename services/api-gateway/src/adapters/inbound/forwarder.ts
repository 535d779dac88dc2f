import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { COMMAND_OWNER, type ApprovalCommand, type CommandPattern, type ServiceName } from '@nodes-manager/contracts';
import { COMMAND_BUS, currentRequestId, type CommandBus } from '@nodes-manager/platform';

/** Forwarder — sends a validated request to the service that owns the command, as the calling actor, with the request id. */
@Injectable()
export class Forwarder {
  constructor(@Inject(COMMAND_BUS) private readonly bus: CommandBus) {}

  send<T = unknown>(pattern: Exclude<CommandPattern, 'service.status' | ApprovalCommand>, data: unknown, actor: string, correlationId?: string): Promise<T> {
    const requestId = currentRequestId();
    return this.bus.send<T>(COMMAND_OWNER[pattern], pattern, data, { actor, correlationId: correlationId ?? randomUUID(), ...(requestId ? { requestId } : {}) });
  }

  /** sendTo — a command answered by several services (the approvals), to the one named. */
  sendTo<T = unknown>(service: ServiceName, pattern: ApprovalCommand, data: unknown, actor: string, correlationId?: string): Promise<T> {
    return this.bus.send<T>(service, pattern, data, { actor, correlationId: correlationId ?? randomUUID() });
  }
}
