import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { parseInput } from './validation.js';

const historyQuery = z.strictObject({
  instanceType: z.string({ error: 'is required' }).regex(/^[a-z0-9-]+\.[a-z0-9-]+$/, 'must be an EC2 instance type such as m5.large'),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1').optional(),
});

/** Spot price history — owned by spot-advisor: one instance type's price changes per zone over the market's window. */
@Controller('api/v1')
export class SpotHistoryController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('spot/history')
  @ApiRoute({ tag: 'spot', summary: 'Spot price changes of one instance type per zone over the window', description: 'The points behind `GET /api/v1/spot/market`\'s trend and estimate (the same cached refresh), for charts.', query: historyQuery, ok: { status: 200, description: 'The price points per zone', schema: reply('spot.history') }, errors: { 503: 'spot-advisor is down, or AWS is not configured (AWS_NOT_CONFIGURED)' } })
  history(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.spotHistory, parseInput(historyQuery, query, 'query'), actor);
  }
}
