import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
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
  market(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.spotMarket, parseInput(marketQuery, query, 'query'), actor);
  }

  @Post('instances')
  @RequiresWrite()
  @HttpCode(201)
  provision(@Body() body: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.instanceProvision, parseInput(provisionBody, body, 'body'), actor);
  }
}
