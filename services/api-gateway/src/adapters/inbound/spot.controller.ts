import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { Expensive } from './rate-limit.guard.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { parseInput, q } from './validation.js';

const marketQuery = z.strictObject({
  region: q.region.optional(),
  instanceTypes: q.csv(q.instanceType).optional(),
  zones: q.csv(q.zone).optional(),
});
const provisionBody = z.strictObject({
  instanceType: q.instanceType,
  count: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(100, 'must be at most 100').default(1),
  // EC2's ClientToken: up to 64 printable ASCII characters.
  clientToken: z.string({ error: 'is required (it makes retries safe)' }).regex(/^[\x21-\x7e]{1,64}$/, 'must be 1 to 64 printable ASCII characters'),
  dryRun: z.boolean({ error: 'must be true or false' }).default(false),
  zone: q.zone.optional(),
  // EC2's tag limits: keys up to 128 characters, values up to 256, at most 50 tags.
  tags: z
    .record(z.string().min(1, 'tag keys must not be empty').max(128, 'tag keys must be at most 128 characters'), z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters'), { error: 'must be an object of tag values' })
    .refine((t) => Object.keys(t).length <= 50, 'must have at most 50 tags')
    .optional(),
});

/** Spot market and on-demand provisioning — owned by spot-advisor. */
@Controller('api/v1')
export class SpotController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('spot/market')
  @ApiRoute({ tag: 'spot', summary: 'Spot prices and interruption estimate by instance type and zone', query: marketQuery, ok: { status: 200, description: 'The market view (served from a cache; stale data is flagged)', schema: reply('spot.market') }, errors: { 403: 'EC2 refused our credentials (EC2_UNAUTHORIZED)', 429: 'EC2 throttled us (EC2_THROTTLED)', 502: 'EC2 failed (UPSTREAM_ERROR)', 503: 'spot-advisor is down, or AWS is not configured (AWS_NOT_CONFIGURED)' } })
  market(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.spotMarket, parseInput(marketQuery, query, 'query'), actor);
  }

  @Post('instances')
  @Expensive()
  @RequiresWrite()
  @HttpCode(201)
  @ApiRoute({ tag: 'instances', summary: 'Provision on-demand instances', description: 'Idempotent on `clientToken`: a retry with the same token answers the first result (`replayed: true`) and launches nothing.', write: true, rateLimited: true, body: provisionBody, bodyRequired: true, bodyExample: { instanceType: 'm5.large', count: 2, clientToken: 'checkout-surge-2026-12-01', zone: 'us-east-1a', tags: { team: 'checkout' } }, ok: { status: 201, description: 'The launched instances', schema: reply('instance.provision') }, errors: { 409: 'the clientToken was used for a different request', 403: 'EC2 refused our credentials (EC2_UNAUTHORIZED)', 429: 'EC2 throttled us (EC2_THROTTLED)', 502: 'EC2 failed (UPSTREAM_ERROR)', 503: 'spot-advisor is down, or AWS is not configured (AWS_NOT_CONFIGURED)' } })
  provision(@Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.instanceProvision, parseInput(provisionBody, body, 'body'), actor);
  }
}
