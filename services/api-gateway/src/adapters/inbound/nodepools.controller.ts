import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { parseInput } from './validation.js';

/** A DNS-1123 subdomain: what Kubernetes accepts as an object name. */
const poolName = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a DNS-1123 name (lower-case letters, digits, - and .)');
const objectBody = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });
const consolidateBody = z.strictObject({ dryRun: z.boolean({ error: 'must be true or false' }).default(true) });

/** Karpenter NodePools and NodeClaims — owned by karpenter-gateway (which validates NodePool content itself). */
@Controller('api/v1/nodepools')
export class NodePoolsController {
  constructor(private readonly fwd: Forwarder) {}

  @Get()
  list(@Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolsList, {}, actor);
  }

  @Get(':name')
  get(@Param('name') name: string, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolGet, { name: parseInput(poolName, name, 'path') }, actor);
  }

  @Post()
  @RequiresWrite()
  @HttpCode(201)
  create(@Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolCreate, { nodePool: parseInput(objectBody, body, 'body') }, actor);
  }

  @Patch(':name')
  @RequiresWrite()
  update(@Param('name') name: string, @Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolUpdate, { name: parseInput(poolName, name, 'path'), patch: parseInput(objectBody, body, 'body') }, actor);
  }

  @Delete(':name')
  @RequiresWrite()
  remove(@Param('name') name: string, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolDelete, { name: parseInput(poolName, name, 'path') }, actor);
  }

  @Get(':name/nodeclaims')
  nodeclaims(@Param('name') name: string, @Actor() actor: string) {
    return this.fwd.send(Commands.nodeclaimsList, { name: parseInput(poolName, name, 'path') }, actor);
  }

  @Post(':name/consolidate')
  @RequiresWrite()
  @HttpCode(202)
  consolidate(@Param('name') name: string, @Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.nodepoolConsolidate, { name: parseInput(poolName, name, 'path'), ...parseInput(consolidateBody, body, 'body') }, actor);
  }
}
