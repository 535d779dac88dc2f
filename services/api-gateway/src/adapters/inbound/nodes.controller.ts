import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { CAPACITY_TYPES, Commands, NODE_STATES, type DrainRequest, type NodesListQuery } from '@nodes-manager/contracts';
import { Actor, CodedError, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { Expensive } from './rate-limit.guard.js';
import { ApiRoute } from './api-docs.js';
import { drainOperation, nodeDetail, nodeView, page } from './response-schemas.js';
import { isUuid, pageShape, param, parseInput, parseParam, q } from './validation.js';

const nodesQuery = z.strictObject({
  ...pageShape,
  state: q.oneOf(NODE_STATES).optional(),
  zone: q.zone.optional(),
  instanceType: q.instanceType.optional(),
  capacityType: q.oneOf(CAPACITY_TYPES).optional(),
  nodePool: q.nodePoolName.optional(),
  includeDeleted: q.boolFrom().default(false),
  sort: q.oneOf(['name', '-name', 'created', '-created']).default('name'),
});

const nodeId = param.nodeKey;
const drainId = param.uuid('a drain operation id');

const drainBody = z.strictObject({
  gracePeriodSeconds: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be at least 0').max(3600, 'must be at most 3600').optional(),
  // Absent means the uncordon service's DRAIN_TIMEOUT_SECONDS.
  timeoutSeconds: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(86400, 'must be at most 86400').optional(),
  force: z.boolean({ error: 'must be true or false' }).default(false),
  deleteEmptyDirData: z.boolean({ error: 'must be true or false' }).default(false),
});

/** Nodes — node-sync's projection, and drains (owned by uncordon). */
@Controller('api/v1/nodes')
export class NodesController {
  constructor(private readonly fwd: Forwarder) {}

  @Get()
  @ApiRoute({ tag: 'nodes', summary: 'List nodes with state, resources and pod counts', description: 'Filters combine with AND; deleted nodes only with `includeDeleted=true`.', query: nodesQuery, ok: { status: 200, description: 'A page of nodes', schema: page(nodeView) } })
  list(@Query() query: unknown, @Actor() actor: string) {
    const data: NodesListQuery = parseInput(nodesQuery, query, 'query');
    return this.fwd.send(Commands.nodesList, data, actor);
  }

  @Get(':id')
  @ApiRoute({ tag: 'nodes', summary: 'One node (by name or id) with its running pods', params: { id: { schema: nodeId, description: 'node name or id (uuid)' } }, ok: { status: 200, description: 'The node and its pods', schema: nodeDetail } })
  async get(@Param('id') id: string, @Actor() actor: string) {
    const node = await this.fwd.send(Commands.nodeGet, { id: parseParam('id', nodeId, id) }, actor);
    // A node view includes what the uncordon service knows of it: its drain (active, else latest; `null` when it never
    // drained), its last PSI reading (`null` unless it opted in to pressure watching) and its fencing (the verdict
    // while it is not Ready, the latest fence; `null` when neither exists). Asked together; one that fails is reported
    // beside the node, never fails the view.
    const [drain, pressure, fencing] = await Promise.allSettled([
      this.fwd.send(Commands.drainGet, { node: node.name }, actor),
      this.fwd.send(Commands.pressureList, { node: node.name }, actor),
      this.fwd.send(Commands.fencingStatus, { node: node.name, limit: 1 }, actor),
    ]);
    const view: Record<string, unknown> = { ...node, drain: null, pressure: null, fencing: null };
    if (drain.status === 'fulfilled') view['drain'] = drain.value;
    else if (CodedError.from(drain.reason).code !== 'NOT_FOUND') view['drainUnavailable'] = CodedError.from(drain.reason).toBody();
    if (pressure.status === 'fulfilled') view['pressure'] = pressure.value.items[0] ?? null;
    if (fencing.status === 'fulfilled') {
      const verdict = fencing.value.verdicts[0] ?? null;
      const operation = fencing.value.operations[0] ?? null;
      view['fencing'] = verdict || operation ? { verdict, operation } : null;
    }
    return view;
  }

  @Post(':id/drain')
  @Expensive()
  @RequiresWrite()
  @HttpCode(202)
  @ApiRoute({ tag: 'nodes', summary: 'Start a graceful drain (kubectl drain semantics)', description: 'Cordons the node and evicts its pods through the Eviction API, honouring PodDisruptionBudgets. Answers at once with the operation; follow it at GET /api/v1/drains/{id} or on the `node.drain.*` events.', write: true, params: { id: { schema: nodeId, description: 'node name or id (uuid)' } }, body: drainBody, ok: { status: 202, description: 'The drain operation, accepted', schema: drainOperation }, rateLimited: true, bodyExample: { timeoutSeconds: 900, force: false, deleteEmptyDirData: true }, errors: { 409: 'a drain already runs on the node' } })
  async drain(@Param('id') id: string, @Body() body: unknown, @Actor() actor: string) {
    const key = parseParam('id', nodeId, id);
    const options = parseInput(drainBody, body, 'body');
    // The path takes a name or an id; the uncordon service drains by name, so an id is resolved first.
    const node = isUuid(key) ? (await this.fwd.send(Commands.nodeGet, { id: key }, actor)).name : key;
    // An operator's drain: recorded by the uncordon service as an executed approval with the caller as its approver.
    const data = { node, ...options, manual: true } as DrainRequest;
    return this.fwd.send(Commands.nodeDrain, data, actor);
  }
}

/** Drain operations — the resource a drain's 202 points at. */
@Controller('api/v1/drains')
export class DrainsController {
  constructor(private readonly fwd: Forwarder) {}

  @Get(':id')
  @ApiRoute({ tag: 'drains', summary: 'One drain operation: status, progress, final result', params: { id: { schema: drainId, description: 'drain operation id' } }, ok: { status: 200, description: 'The drain operation', schema: drainOperation } })
  get(@Param('id') id: string, @Actor() actor: string) {
    return this.fwd.send(Commands.drainGet, { id: parseParam('id', drainId, id) }, actor);
  }
}
