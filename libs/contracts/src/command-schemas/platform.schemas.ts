import { ApprovalKinds, ApprovalStatuses } from '../approvals.js';
import { arrayOf, bool, closed, int, mapOf, nullableNum, nullableStr, oneOf, open, str, time, type JsonSchema } from '../json-schema.js';
import { limit, noRequest, type CommandSchema } from './command-schema.js';

const check = open({ ok: bool(), degraded: bool('not ready, but still serving what it can'), detail: str() }, ['degraded', 'detail']);

/** What a fence's node entry and its result carry: the instance and why the node looks dead. */
const fenceFacts = {
  instanceId: str('the EC2 instance, for a fence'),
  evidence: open(
    { ready: str(), notReadySince: nullableStr(), leaseRenewedAt: nullableStr(), leaseStaleSeconds: { type: ['integer', 'null'] }, message: str() },
    [],
    'why the node looks dead, for a fence: the fencing verdict when the request was made',
  ),
};

/** APPROVAL_VIEW_SCHEMA — an approval as its owning service answers it (ApprovalView; docs/approvals.md). */
export const APPROVAL_VIEW_SCHEMA: JsonSchema = open({
  id: str('`<kind>-<uuid>`'),
  kind: oneOf(ApprovalKinds),
  service: str(),
  status: oneOf(ApprovalStatuses),
  subject: str('`cluster` for the optimizer, the NodePool for a consolidation, the node for a fence or a manual drain'),
  reason: str(),
  planId: nullableStr(),
  nodes: arrayOf(
    open(
      {
        node: str(),
        nodePool: nullableStr(),
        reason: str(),
        utilization: { type: 'number' },
        savingsUsdPerHour: { type: 'number' },
        pods: arrayOf(open({ pod: str('namespace/name'), to: str('the node it re-packs onto') })),
        nodeClaim: str(),
        ...fenceFacts,
      },
      ['utilization', 'savingsUsdPerHour', 'pods', 'nodeClaim', 'instanceId', 'evidence'],
    ),
    'the nodes the action would disrupt: why, the savings, and where their pods go',
  ),
  pdbImpact: arrayOf(open({ pdb: str(), disruptionsUsed: int(), disruptionsAllowed: int() })),
  hourlySavingsUsd: nullableNum(),
  monthlySavingsUsd: nullableNum(),
  requestedBy: str(),
  requestedAt: time(),
  expiresAt: time(),
  decidedBy: nullableStr(),
  decidedAt: nullableStr(),
  comment: nullableStr(),
  executedAt: nullableStr(),
  results: arrayOf(
    open(
      { node: str(), outcome: oneOf(['started', 'skipped', 'failed']), reason: str(), detail: str(), operationId: str(), nodeClaim: str(), ...fenceFacts },
      ['operationId', 'nodeClaim', 'instanceId', 'evidence'],
    ),
    'what became of each node at execution',
  ),
  correlationId: nullableStr(),
});

const approvalId = { ...str('`<kind>-<uuid>`'), maxLength: 100 };
const decision: JsonSchema = closed({ id: approvalId, comment: { ...str(), maxLength: 1000 } }, ['comment']);

/**
 * The commands every service answers with its own pattern (`service.status.<service>`, `approvals.<verb>.<service>`),
 * so that in one process each service keeps its own handler; one schema serves them all.
 */
export const PLATFORM_COMMAND_SCHEMAS = {
  'service.status': {
    summary: "The service's readiness, for the gateway's /readyz: each check, and whether it is ready or degraded.",
    request: noRequest,
    reply: open({ ready: bool(), degraded: bool(), reason: str('e.g. `degraded: broker`'), checks: mapOf(check) }, ['reason']),
  },
  'approvals.list': {
    summary: "The service's approval requests, newest first, after the gateway's keyset (the gateway merges every owner's page).",
    request: closed(
      {
        limit: limit(),
        status: oneOf(ApprovalStatuses),
        kind: oneOf(ApprovalKinds),
        after: closed({ requestedAt: str(), id: approvalId }, [], 'the (requestedAt, id) of the last approval of the previous page'),
      },
      ['status', 'kind', 'after'],
    ),
    reply: open({ items: arrayOf(APPROVAL_VIEW_SCHEMA), more: bool('more approvals follow the last one') }),
  },
  'approvals.get': { summary: 'One approval: the action in full, why, its deadline and outcome.', request: closed({ id: approvalId }), reply: APPROVAL_VIEW_SCHEMA },
  'approvals.approve': { summary: 'Approve an approval as the caller; the owning service carries it out on its next pass.', request: decision, reply: APPROVAL_VIEW_SCHEMA },
  'approvals.reject': { summary: 'Reject an approval as the caller: nothing is done.', request: decision, reply: APPROVAL_VIEW_SCHEMA },
} as const satisfies Record<string, CommandSchema>;
