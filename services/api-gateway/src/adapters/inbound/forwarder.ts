import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { approvalPattern, COMMAND_OWNER, type ApprovalVerb, type CommandPattern, type ServiceName } from '@nodes-manager/contracts';
import { COMMAND_BUS, currentRequestId, type CommandBus } from '@nodes-manager/platform';

/** Forwarder — sends a validated request to the service that owns the command, as the calling actor, with the request id. */
@Injectable()
export class Forwarder {
  constructor(@Inject(COMMAND_BUS) private readonly bus: CommandBus) {}

  send<T = unknown>(pattern: Exclude<CommandPattern, 'service.status'>, data: unknown, actor: string, correlationId?: string): Promise<T> {
    const requestId = currentRequestId();
    return this.bus.send<T>(COMMAND_OWNER[pattern], pattern, data, { actor, correlationId: correlationId ?? randomUUID(), ...(requestId ? { requestId } : {}) });
  }

  /** approval — an approval command to the service that owns it (`approvalPattern`). */
  approval<T = unknown>(service: ServiceName, verb: ApprovalVerb, data: unknown, actor: string, correlationId?: string): Promise<T> {
    const requestId = currentRequestId();
    return this.bus.send<T>(service, approvalPattern(service, verb), data, { actor, correlationId: correlationId ?? randomUUID(), ...(requestId ? { requestId } : {}) });
  }
}
