import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute, OBJECT_SCHEMA } from './api-docs.js';
import { parseInput, q } from './validation.js';

const marketQuery = z.strictObject({
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1').optional(),
  instanceTypes: q.csv().optional(),
  zones: q.csv().optional(),
});
const provisionBody = z.strictObject({
  instanceType: z.string({ error: 'is required' }).regex(/^[a-z0-9-]+\.[a-z0-9-]+$/, 'must be an EC2 instance type such as m5.large'),
  count: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(100, 'must be at most 100').default(1),
  clientToken: z.string({ error: 'is required (it makes retries safe)' }).min(1).max(64, 'must be at most 64 characters'),
  dryRun: z.boolean({ error: 'must be true or false' }).default(false),
  zone: z.string().min(1).optional(),
  tags: z.record(z.string(), z.string()).optional(),
});

/** Spot market and on-demand provisioning — owned by spot-advisor. */
@Controller('api/v1')
export class SpotController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('spot/market')
  @ApiRoute({ tag: 'spot', summary: 'Spot prices and interruption estimate by instance type and zone', query: marketQuery, ok: { status: 200, description: 'The market view (served from a cache; stale data is flagged)', schema: OBJECT_SCHEMA }, errors: { 403: 'EC2 refused our credentials (EC2_UNAUTHORIZED)', 429: 'EC2 throttled us (EC2_THROTTLED)', 502: 'EC2 failed (UPSTREAM_ERROR)', 503: 'spot-advisor is down, or AWS is not configured (AWS_NOT_CONFIGURED)' } })
  market(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.spotMarket, parseInput(marketQuery, query, 'query'), actor);
  }

  @Post('instances')
  @RequiresWrite()
  @HttpCode(201)
  @ApiRoute({ tag: 'spot', summary: 'Provision on-demand instances', description: 'Idempotent on `clientToken`: a retry with the same token answers the first result (`replayed: true`) and launches nothing.', write: true, body: provisionBody, ok: { status: 201, description: 'The launched instances', schema: OBJECT_SCHEMA }, errors: { 409: 'the clientToken was used for a different request', 403: 'EC2 refused our credentials (EC2_UNAUTHORIZED)', 429: 'EC2 throttled us (EC2_THROTTLED)', 502: 'EC2 failed (UPSTREAM_ERROR)', 503: 'spot-advisor is down, or AWS is not configured (AWS_NOT_CONFIGURED)' } })
  provision(@Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.instanceProvision, parseInput(provisionBody, body, 'body'), actor);
  }
}
