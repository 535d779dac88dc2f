import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import {
  APPROVAL_OWNERS,
  approvalKindOf,
  ApprovalKinds,
  ApprovalStatuses,
  decodeCursor,
  encodeCursor,
  type ApprovalKind,
  type ApprovalView,
  type ServiceName,
} from '@nodes-manager/contracts';
import { Actor, CodedError, RequiresWrite, validationFailed } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { page } from './response-schemas.js';
import { pageShape, parseInput, parseParam } from './validation.js';

const listQuery = z.strictObject({ ...pageShape, status: z.enum(ApprovalStatuses).optional(), kind: z.enum(ApprovalKinds).optional() });
const approvalIdParam = z.string().max(100).refine((id) => approvalKindOf(id) !== undefined, 'must be an approval id such as optimize-<uuid>, consolidate-<uuid>, fence-<uuid> or drain-<uuid>');
const decisionBody = z.strictObject({ comment: z.string().max(1000, 'must be at most 1000 characters').optional() });

/** The keyset of the merged list: newest first by (requestedAt, id), ids compared byte-wise as the services do. */
interface Key {
  requestedAt: string;
  id: string;
}
const byKeyDesc = (a: Key, b: Key) => (a.requestedAt !== b.requestedAt ? (a.requestedAt < b.requestedAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
function decodeKey(cursor: string): Key {
  const key = decodeCursor(cursor, 2);
  const [requestedAt, id] = key ?? [];
  if (typeof requestedAt === 'string' && !Number.isNaN(Date.parse(requestedAt)) && typeof id === 'string' && approvalKindOf(id)) return { requestedAt, id };
  throw validationFailed([{ in: 'query', field: 'cursor', message: 'is not one this API returned' }]);
}

const owners = (kind?: ApprovalKind): ServiceName[] => [...new Set(kind ? [APPROVAL_OWNERS[kind]] : Object.values(APPROVAL_OWNERS))];

const ownerOf = (id: string): ServiceName => APPROVAL_OWNERS[approvalKindOf(id)!];

const nullableStr = { type: ['string', 'null'] };
/** What a fence's node entry and its result carry: the instance and why the node looks dead. */
const fenceFacts = {
  instanceId: { type: 'string', description: 'the EC2 instance, for a fence' },
  evidence: {
    type: 'object',
    description: 'why the node looks dead, for a fence: the fencing verdict when the request was made',
    required: ['ready', 'notReadySince', 'leaseRenewedAt', 'leaseStaleSeconds', 'message'],
    properties: { ready: { type: 'string' }, notReadySince: nullableStr, leaseRenewedAt: nullableStr, leaseStaleSeconds: { type: ['integer', 'null'] }, message: { type: 'string' } },
  },
};
const nullableNum = { type: ['number', 'null'] };
/** An approval as the owning service answers it (libs/contracts ApprovalView; docs/approvals.md). */
const APPROVAL_SCHEMA = {
  type: 'object',
  required: ['id', 'kind', 'service', 'status', 'subject', 'reason', 'planId', 'nodes', 'pdbImpact', 'hourlySavingsUsd', 'monthlySavingsUsd', 'requestedBy', 'requestedAt', 'expiresAt', 'decidedBy', 'decidedAt', 'comment', 'executedAt', 'results', 'correlationId'],
  properties: {
    id: { type: 'string', description: '`<kind>-<uuid>`' },
    kind: { type: 'string', enum: [...ApprovalKinds] },
    service: { type: 'string' },
    status: { type: 'string', enum: [...ApprovalStatuses] },
    subject: { type: 'string', description: '`cluster` for the optimizer, the NodePool for a consolidation, the node for a fence or a manual drain' },
    reason: { type: 'string' },
    planId: nullableStr,
    nodes: {
      type: 'array',
      description: 'the nodes the action would disrupt: why, the savings, and where their pods go',
      items: {
        type: 'object',
        required: ['node', 'nodePool', 'reason'],
        properties: {
          node: { type: 'string' },
          nodePool: nullableStr,
          reason: { type: 'string' },
          utilization: { type: 'number' },
          savingsUsdPerHour: { type: 'number' },
          pods: { type: 'array', items: { type: 'object', required: ['pod', 'to'], properties: { pod: { type: 'string', description: 'namespace/name' }, to: { type: 'string', description: 'the node it re-packs onto' } } } },
          nodeClaim: { type: 'string' },
          ...fenceFacts,
        },
      },
    },
    pdbImpact: { type: 'array', items: { type: 'object', required: ['pdb', 'disruptionsUsed', 'disruptionsAllowed'], properties: { pdb: { type: 'string' }, disruptionsUsed: { type: 'integer' }, disruptionsAllowed: { type: 'integer' } } } },
    hourlySavingsUsd: nullableNum,
    monthlySavingsUsd: nullableNum,
    requestedBy: { type: 'string' },
    requestedAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
    decidedBy: nullableStr,
    decidedAt: nullableStr,
    comment: nullableStr,
    executedAt: nullableStr,
    results: {
      type: 'array',
      description: 'what became of each node at execution',
      items: {
        type: 'object',
        required: ['node', 'outcome', 'reason', 'detail'],
        properties: {
          node: { type: 'string' },
          outcome: { type: 'string', enum: ['started', 'skipped', 'failed'] },
          reason: { type: 'string' },
          detail: { type: 'string' },
          operationId: { type: 'string' },
          nodeClaim: { type: 'string' },
          ...fenceFacts,
        },
      },
    },
    correlationId: nullableStr,
  },
};

/**
 * Approvals of disruptive actions (docs/approvals.md). Each owning service keeps its own; an id's `<kind>-` prefix
 * routes it to its owner, and the list asks every owner for a page after the same key and merges them.
 */
@Controller('api/v1/approvals')
export class ApprovalsController {
  constructor(private readonly fwd: Forwarder) {}

  @Get()
  @ApiRoute({
    tag: 'approvals',
    summary: 'Approval requests of disruptive actions, newest first',
    description: 'Filter by `status` (pending, approved, rejected, expired, executing, executed, failed) and `kind` (optimize, consolidate, fence, drain).',
    query: listQuery,
    ok: { status: 200, description: 'A page of approvals', schema: page(APPROVAL_SCHEMA).extend({
        unavailable: z.array(z.looseObject({ service: z.string(), code: z.string() })).optional().describe('owning services that did not answer, and why (SERVICE_UNAVAILABLE or TIMEOUT)'),
      }),
    },
  })
  async list(@Query() query: unknown, @Actor() actor: string) {
    const q = parseInput(listQuery, query, 'query');
    const after = q.cursor === undefined ? undefined : decodeKey(q.cursor);
    const asked = owners(q.kind);
    const answers = await Promise.allSettled(
      asked.map((service) =>
        this.fwd.approval(
          service,
          'list',
          { limit: q.limit, ...(q.status ? { status: q.status } : {}), ...(q.kind ? { kind: q.kind } : {}), ...(after ? { after } : {}) },
          actor,
        ),
      ),
    );
    // An owner that is down or slow leaves its approvals out and is named in `unavailable`; any other failure, or
    // every owner failing, is the answer.
    const unavailable: { service: ServiceName; code: string }[] = [];
    const pages: { items: ApprovalView[]; more: boolean }[] = [];
    answers.forEach((a, i) => {
      if (a.status === 'fulfilled') pages.push(a.value);
      else if (['SERVICE_UNAVAILABLE', 'TIMEOUT'].includes((a.reason as CodedError).code) && answers.some((o) => o.status === 'fulfilled')) unavailable.push({ service: asked[i]!, code: (a.reason as CodedError).code });
      else throw a.reason;
    });
    const merged = pages.flatMap((p) => p.items).sort(byKeyDesc);
    const items = merged.slice(0, q.limit);
    const more = merged.length > q.limit || pages.some((p) => p.more);
    const last = items[items.length - 1];
    return { items, ...(more && last ? { nextCursor: encodeCursor([last.requestedAt, last.id]) } : {}), ...(unavailable.length ? { unavailable } : {}) };
  }

  @Get(':id')
  @ApiRoute({ tag: 'approvals', summary: 'One approval: the action in full, why, by which plan, its deadline and outcome', params: { id: { schema: approvalIdParam, description: 'approval id (`<kind>-<uuid>`)' } }, ok: { status: 200, description: 'The approval', schema: APPROVAL_SCHEMA } })
  get(@Param('id') id: string, @Actor() actor: string) {
    const valid = parseParam('id', approvalIdParam, id);
    return this.fwd.approval(ownerOf(valid), 'get', { id: valid }, actor);
  }

  @Post(':id/approve')
  @RequiresWrite()
  @HttpCode(200)
  @ApiRoute({
    tag: 'approvals',
    summary: 'Approve a pending request; it runs at the next pass inside a maintenance window, every node re-checked first',
    write: true,
    params: { id: { schema: approvalIdParam, description: 'approval id' } },
    body: decisionBody,
    ok: { status: 200, description: 'The approval, now approved', schema: APPROVAL_SCHEMA },
    errors: { 403: 'no write scope, or the caller requested it (APPROVAL_DISTINCT_APPROVER)', 409: 'it is not pending any more (decided, expired, executed)' },
  })
  approve(@Param('id') id: string, @Body() body: unknown, @Actor() actor: string) {
    return this.decide('approve', id, body, actor);
  }

  @Post(':id/reject')
  @RequiresWrite()
  @HttpCode(200)
  @ApiRoute({
    tag: 'approvals',
    summary: 'Reject a pending request: nothing is done',
    write: true,
    params: { id: { schema: approvalIdParam, description: 'approval id' } },
    body: decisionBody,
    ok: { status: 200, description: 'The approval, now rejected', schema: APPROVAL_SCHEMA },
    errors: { 409: 'it is not pending any more' },
  })
  reject(@Param('id') id: string, @Body() body: unknown, @Actor() actor: string) {
    return this.decide('reject', id, body, actor);
  }

  /** decide — an approve or a reject, forwarded to the service that owns the approval's kind. */
  private decide(verb: 'approve' | 'reject', id: string, body: unknown, actor: string) {
    const valid = parseParam('id', approvalIdParam, id);
    return this.fwd.approval(ownerOf(valid), verb, { id: valid, ...parseInput(decisionBody, body, 'body') }, actor);
  }
}
