import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import {
  APPROVAL_OWNERS,
  APPROVAL_VIEW_SCHEMA,
  approvalKindOf,
  ApprovalKinds,
  ApprovalStatuses,
  LIST_CURSORS,
  page as jsonPage,
  type ApprovalKind,
  type ApprovalView,
  type ServiceName,
} from '@nodes-manager/contracts';
import { Actor, CodedError, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
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
const APPROVALS_CURSOR = LIST_CURSORS['approvals'];
function decodeKey(cursor: string): Key {
  const [requestedAt, id] = APPROVALS_CURSOR.decode(cursor);
  return { requestedAt, id };
}

const owners = (kind?: ApprovalKind): ServiceName[] => [...new Set(kind ? [APPROVAL_OWNERS[kind]] : Object.values(APPROVAL_OWNERS))];

const ownerOf = (id: string): ServiceName => APPROVAL_OWNERS[approvalKindOf(id)!];

/** The merged page of every owner's approvals, and the owners that did not answer. */
const APPROVALS_PAGE_SCHEMA = {
  ...jsonPage(APPROVAL_VIEW_SCHEMA),
  properties: {
    ...(jsonPage(APPROVAL_VIEW_SCHEMA)['properties'] as object),
    unavailable: {
      type: 'array',
      description: 'owning services that did not answer, and why (SERVICE_UNAVAILABLE or TIMEOUT)',
      items: { type: 'object', required: ['service', 'code'], properties: { service: { type: 'string' }, code: { type: 'string' } } },
    },
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
    ok: { status: 200, description: 'A page of approvals', schema: APPROVALS_PAGE_SCHEMA,
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
    return { items, ...(more && last ? { nextCursor: APPROVALS_CURSOR.encode([last.requestedAt, last.id]) } : {}), ...(unavailable.length ? { unavailable } : {}) };
  }

  @Get(':id')
  @ApiRoute({ tag: 'approvals', summary: 'One approval: the action in full, why, by which plan, its deadline and outcome', params: { id: { schema: approvalIdParam, description: 'approval id (`<kind>-<uuid>`)' } }, ok: { status: 200, description: 'The approval', schema: APPROVAL_VIEW_SCHEMA } })
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
    ok: { status: 200, description: 'The approval, now approved', schema: APPROVAL_VIEW_SCHEMA },
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
    ok: { status: 200, description: 'The approval, now rejected', schema: APPROVAL_VIEW_SCHEMA },
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
