import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { Expensive } from './rate-limit.guard.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { pageShape, parseInput, q } from './validation.js';

const quantity = (what: string) =>
  z.union([z.string().regex(/^\d+(\.\d+)?(m|k|Ki|Mi|Gi|Ti|M|G|T)?$/, `must be a Kubernetes ${what} quantity`), z.number().positive()]).transform(String);

const WORKLOAD_CLASSES = ['gpu', 'stateful', 'batch', 'latency_sensitive', 'stateless'] as const;
// A decision's subject is a node name, a NodePool name or `cluster`: all DNS-1123 subdomains.
const decisionsQuery = z.strictObject({ ...pageShape, kind: q.identifier.optional(), subject: q.nodeName.optional() });
const placementQuery = z.strictObject({
  ...pageShape,
  namespace: q.namespace.optional(),
  node: q.nodeName.optional(),
  workloadClass: q.oneOf(WORKLOAD_CLASSES).optional(),
});
const planQuery = z.strictObject({ nodePool: q.nodePoolName.optional() });
const triggerBody = z.strictObject({ dryRun: z.boolean({ error: 'must be true or false' }).default(true) });
const simulateBody = z.strictObject({
  pods: z
    .array(
      z.strictObject({
        name: z.string().max(253, 'must be at most 253 characters').optional(),
        count: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(100000, 'must be at most 100000'),
        cpu: quantity('CPU'),
        memory: quantity('memory'),
        gpu: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be at least 0').max(16, 'must be at most 16').optional(),
        workloadClass: q.oneOf(WORKLOAD_CLASSES).optional(),
        nodeSelector: z.record(z.string().max(317), z.string().max(63), { error: 'must be an object of label values' }).optional(),
        tolerations: z
          .array(
            z.strictObject({
              key: z.string().max(317).optional(),
              operator: q.oneOf(['Exists', 'Equal']).optional(),
              value: z.string().max(63).optional(),
              effect: q.oneOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
            }),
          )
          .max(50, 'must list at most 50 tolerations')
          .optional(),
        zone: q.zone.optional(),
      }),
    )
    .min(1, 'must list at least one pod group')
    .max(1000, 'must list at most 1000 pod groups'),
});

/** Scheduling, placement and optimisation — owned by scheduler-scoring. */
@Controller('api/v1')
export class SchedulingController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('decisions')
  @ApiRoute({ tag: 'decisions', summary: 'The scheduling decision log, newest first', query: decisionsQuery, ok: { status: 200, description: 'A page of decisions', schema: reply('decisions.list') } })
  decisions(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.decisionsList, parseInput(decisionsQuery, query, 'query'), actor);
  }

  @Get('workloads/placement')
  @ApiRoute({ tag: 'placement', summary: 'Every workload with its node, class, score and rationale', query: placementQuery, ok: { status: 200, description: 'A page of placements', schema: reply('placement.list') } })
  placement(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.placementList, parseInput(placementQuery, query, 'query'), actor);
  }

  @Get('optimize/plan')
  @ApiRoute({ tag: 'optimize', summary: 'The consolidation plan with savings and PodDisruptionBudget impact', query: planQuery, ok: { status: 200, description: 'The plan', schema: reply('optimize.plan') } })
  plan(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.optimizePlan, parseInput(planQuery, query, 'query'), actor);
  }

  @Post('optimize/trigger')
  @Expensive()
  @RequiresWrite()
  @HttpCode(202)
  @ApiRoute({ tag: 'optimize', summary: 'Run an optimisation cycle now', description: '`dryRun` (default true) plans only; `dryRun: false` also drains the planned nodes.', write: true, rateLimited: true, body: triggerBody, bodyExample: { dryRun: true }, ok: { status: 202, description: 'The cycle ran: its decisions and plan', schema: reply('optimize.trigger') } })
  trigger(@Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.optimizeTrigger, parseInput(triggerBody, body, 'body'), actor);
  }

  @Post('simulate')
  @Expensive()
  @HttpCode(200)
  @ApiRoute({ tag: 'simulate', summary: 'Simulate placing N pods: projected node additions', rateLimited: true, body: simulateBody, bodyRequired: true, bodyExample: { pods: [{ name: 'web', count: 20, cpu: '500m', memory: '1Gi' }] }, ok: { status: 200, description: 'Projected placement and node additions', schema: reply('simulate.run') } })
  simulate(@Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.simulate, parseInput(simulateBody, body, 'body'), actor);
  }
}
