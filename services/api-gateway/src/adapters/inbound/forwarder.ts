import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { approvalPattern, COMMAND_OWNER, type ApprovalVerb, type CommandPattern, type ReplyOf, type RequestOf, type ServiceName } from '@nodes-manager/contracts';
import { COMMAND_BUS, currentRequestId, type CommandBus } from '@nodes-manager/platform';

type OwnedPattern = Exclude<CommandPattern, 'service.status'>;

/** Forwarder — sends a validated request to the service that owns the command, as the calling actor, with the request id. */
@Injectable()
export class Forwarder {
  constructor(@Inject(COMMAND_BUS) private readonly bus: CommandBus) {}

  send<P extends OwnedPattern>(pattern: P, data: RequestOf<P>, actor: string, correlationId?: string): Promise<ReplyOf<P>> {
    const requestId = currentRequestId();
    return this.bus.send(pattern, data, { actor, correlationId: correlationId ?? randomUUID(), ...(requestId ? { requestId } : {}) });
  }

  /** approval — an approval command to the service that owns it (`approvalPattern`). */
  approval<V extends ApprovalVerb>(service: ServiceName, verb: V, data: RequestOf<`approvals.${V}.${ServiceName}`>, actor: string, correlationId?: string): Promise<ReplyOf<`approvals.${V}.${ServiceName}`>> {
    const requestId = currentRequestId();
    return this.bus.send(approvalPattern(service, verb), data, { actor, correlationId: correlationId ?? randomUUID(), ...(requestId ? { requestId } : {}) });
  }
}
