import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { MERGE_PATCH } from './media-type.middleware.js';
import { reply } from './response-schemas.js';
import { param, parseInput, parseParam } from './validation.js';

const poolName = param.nodePoolName;
const objectBody = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });
const consolidateBody = z.strictObject({ dryRun: z.boolean({ error: 'must be true or false' }).default(true) });

/** Karpenter NodePools and NodeClaims — owned by karpenter-gateway (which validates NodePool content itself). */
@Controller('api/v1/nodepools')
export class NodePoolsController {
  constructor(private readonly fwd: Forwarder) {}

  @Get()
  @ApiRoute({ tag: 'nodepools', summary: 'Karpenter NodePools (empty when Karpenter is absent)', ok: { status: 200, description: 'The NodePools', schema: reply('nodepools.list') } })
  list(@Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolsList, {}, actor);
  }

  @Get(':name')
  @ApiRoute({ tag: 'nodepools', summary: 'One NodePool', params: { name: { schema: poolName, description: 'NodePool name' } }, ok: { status: 200, description: 'The NodePool, its summary and its NodeClaims', schema: reply('nodepool.get') }, errors: { 404: 'no such NodePool, or Karpenter is not installed (KARPENTER_NOT_INSTALLED)' } })
  get(@Param('name') name: string, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolGet, { name: parseParam('name', poolName, name) }, actor);
  }

  @Post()
  @RequiresWrite()
  @HttpCode(201)
  @ApiRoute({ tag: 'nodepools', summary: 'Create a NodePool', description: 'The body is a karpenter.sh/v1 NodePool (metadata.name and spec); it is validated before anything is sent.', write: true, body: objectBody, bodyRequired: true, bodyExample: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'batch' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] } }, limits: { cpu: '200' } } }, ok: { status: 201, description: 'The NodePool as created', schema: reply('nodepool.create') }, errors: { 409: 'it exists already, or Karpenter is not installed (KARPENTER_NOT_INSTALLED_FOR_WRITE)' } })
  create(@Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolCreate, { nodePool: parseInput(objectBody, body, 'body') }, actor);
  }

  @Patch(':name')
  @RequiresWrite()
  @ApiRoute({ tag: 'nodepools', summary: 'Change a NodePool: spec.limits or spec.disruption only (JSON merge patch)', write: true, params: { name: { schema: poolName, description: 'NodePool name' } }, body: objectBody, bodyRequired: true, bodyTypes: [MERGE_PATCH, 'application/json'], bodyExample: { spec: { limits: { cpu: '400' }, disruption: { consolidateAfter: '5m' } } }, ok: { status: 200, description: 'The NodePool as updated', schema: reply('nodepool.update') }, errors: { 404: 'no such NodePool', 409: 'Karpenter is not installed (KARPENTER_NOT_INSTALLED_FOR_WRITE), or the NodePool changed meanwhile' } })
  update(@Param('name') name: string, @Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolUpdate, { name: parseParam('name', poolName, name), patch: parseInput(objectBody, body, 'body') }, actor);
  }

  @Delete(':name')
  @RequiresWrite()
  @ApiRoute({ tag: 'nodepools', summary: 'Delete a NodePool', write: true, params: { name: { schema: poolName, description: 'NodePool name' } }, ok: { status: 200, description: 'Deleted', schema: reply('nodepool.delete') }, errors: { 404: 'no such NodePool', 409: 'Karpenter is not installed (KARPENTER_NOT_INSTALLED_FOR_WRITE), or the NodePool changed meanwhile' } })
  remove(@Param('name') name: string, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolDelete, { name: parseParam('name', poolName, name) }, actor);
  }

  @Get(':name/nodeclaims')
  @ApiRoute({ tag: 'nodepools', summary: "A NodePool's NodeClaims", params: { name: { schema: poolName, description: 'NodePool name' } }, ok: { status: 200, description: 'The NodeClaims', schema: reply('nodeclaims.list') }, errors: { 404: 'no such NodePool, or Karpenter is not installed (KARPENTER_NOT_INSTALLED)' } })
  nodeclaims(@Param('name') name: string, @Actor() actor: string) {
    return this.fwd.send(Commands.nodeclaimsList, { name: parseParam('name', poolName, name) }, actor);
  }

  @Post(':name/consolidate')
  @RequiresWrite()
  @HttpCode(202)
  @ApiRoute({ tag: 'nodepools', summary: 'Consolidate the pool: delete the NodeClaims of the planned removals, within its disruption budgets', description: '`dryRun` (default true) only says which NodeClaims would go.', write: true, params: { name: { schema: poolName, description: 'NodePool name' } }, body: consolidateBody, bodyExample: { dryRun: true }, ok: { status: 202, description: 'What was (or would be) deleted, skipped and why', schema: reply('nodepool.consolidate') }, errors: { 404: 'no such NodePool', 409: 'Karpenter is not installed (KARPENTER_NOT_INSTALLED_FOR_WRITE), or the NodePool changed meanwhile' } })
  consolidate(@Param('name') name: string, @Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolConsolidate, { name: parseParam('name', poolName, name), ...parseInput(consolidateBody, body, 'body') }, actor);
  }
}
