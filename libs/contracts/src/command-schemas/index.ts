/**
 * The command catalogue: for every command, what it takes and answers (JSON Schemas, draft-07) and what it is for.
 * The platform checks each request where it is sent and where it is handled, and each reply where it is produced and
 * where it is received (libs/platform/src/messaging/command-contracts.ts); docs/commands.md is generated from it.
 * Data only.
 */
import type { ApprovalVerb, CommandPattern } from '../commands.js';
import type { ServiceName } from '../events.js';
import type { CommandSchema } from './command-schema.js';
import { KARPENTER_GATEWAY_COMMAND_SCHEMAS } from './karpenter-gateway.schemas.js';
import { NODE_SYNC_COMMAND_SCHEMAS } from './node-sync.schemas.js';
import { PAUSE_COMMAND_SCHEMAS } from './pause.schemas.js';
import { PLATFORM_COMMAND_SCHEMAS } from './platform.schemas.js';
import { SCHEDULER_SCORING_COMMAND_SCHEMAS } from './scheduler-scoring.schemas.js';
import { SPOT_ADVISOR_COMMAND_SCHEMAS } from './spot-advisor.schemas.js';
import { UNCORDON_COMMAND_SCHEMAS } from './uncordon.schemas.js';

export type { CommandSchema } from './command-schema.js';
export { APPROVAL_VIEW_SCHEMA } from './platform.schemas.js';
export { NODE_DETAIL_SCHEMA, NODE_VIEW_SCHEMA } from './node-sync.schemas.js';
export { DRAIN_OPERATION_SCHEMA, FENCING_VIEW_SCHEMA, NODE_PRESSURE_SCHEMA } from './uncordon.schemas.js';
export { CONSOLIDATION_PLAN_SCHEMA } from './scheduler-scoring.schemas.js';
export { PAUSE_VIEW_SCHEMA } from './pause.schemas.js';

/** CommandName — a command of the catalogue; the per-service patterns (`approvals.list.<service>`) share one name. */
export type CommandName = Exclude<CommandPattern, 'service.status'> | 'service.status' | `approvals.${ApprovalVerb}`;

/** COMMAND_SCHEMAS — every command's schemas; a command without them does not compile (the Record is exhaustive). */
export const COMMAND_SCHEMAS: Readonly<Record<CommandName, CommandSchema>> = {
  ...NODE_SYNC_COMMAND_SCHEMAS,
  ...UNCORDON_COMMAND_SCHEMAS,
  ...SCHEDULER_SCORING_COMMAND_SCHEMAS,
  ...KARPENTER_GATEWAY_COMMAND_SCHEMAS,
  ...SPOT_ADVISOR_COMMAND_SCHEMAS,
  ...PAUSE_COMMAND_SCHEMAS,
  ...PLATFORM_COMMAND_SCHEMAS,
};

/** SentPattern — a pattern as it travels: a command's own, or a per-service one (`service.status.uncordon`). */
export type SentPattern = Exclude<CommandPattern, 'service.status'> | `service.status.${ServiceName}` | `approvals.${ApprovalVerb}.${ServiceName}`;

/** NameOf — the catalogue name of a pattern, as a type. */
export type NameOf<P extends string> = P extends `approvals.${infer V}.${string}` ? `approvals.${V & ApprovalVerb}` : P extends `service.status.${string}` ? 'service.status' : P & CommandName;

/** commandNameOf — the catalogue name of a pattern (`approvals.list.uncordon` → `approvals.list`); undefined when it has none. */
export function commandNameOf(pattern: string): CommandName | undefined {
  const m = /^(approvals\.[a-z]+|service\.status)\.[a-z-]+$/.exec(pattern);
  const name = m ? m[1]! : pattern;
  return Object.prototype.hasOwnProperty.call(COMMAND_SCHEMAS, name) ? (name as CommandName) : undefined;
}
