import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { parseInput } from './validation.js';

/** REPORT_MAX_DAYS — the longest window `GET /api/v1/steering/report` replays (karpenter-gateway holds the same bound). */
const REPORT_MAX_DAYS = 31;
const isoTime = () => z.iso.datetime({ offset: true, error: 'must be an RFC 3339 time such as 2026-11-30T10:00:00Z' });
const reportShape = z.strictObject({ from: isoTime(), to: isoTime().optional() });
const reportQuery = reportShape
  .refine((q) => !q.to || Date.parse(q.from) < Date.parse(q.to), { message: 'must be after from', path: ['to'] })
  .refine((q) => !q.to || Date.parse(q.to) - Date.parse(q.from) <= REPORT_MAX_DAYS * 86_400_000, { message: `must be at most ${REPORT_MAX_DAYS} days after from`, path: ['to'] });

/** Steering's read routes — owned by karpenter-gateway (docs/steering.md). */
@Controller('api/v1/steering')
export class SteeringViewsController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('pools')
  @ApiRoute({
    tag: 'steering',
    summary: "Every Spot pool steering knows with its health, interrupted share and interval, lead time, price and expected cost, the countdown to its restore; steering's mode and each NodePool's change",
    description: 'Avoided pools first, then watched, then by expected cost. `restoreInSeconds` counts from `asOf`.',
    query: z.strictObject({}),
    ok: { status: 200, description: 'The pools and the NodePool changes', schema: reply('steering.pools') },
  })
  pools(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.steeringPools, parseInput(z.strictObject({}), query, 'query'), actor);
  }

  @Get('report')
  @ApiRoute({
    tag: 'steering',
    summary: 'The window replayed from the rebalance ledger through the pool-health rule: pools that would have been avoided and when, interruptions spared, extra cost',
    description: `\`from\` is required; \`to\` defaults to now and must be after \`from\`, at most ${REPORT_MAX_DAYS} days later. Read it before turning STEERING_MODE=execute on.`,
    query: reportShape,
    ok: { status: 200, description: 'The replay', schema: reply('steering.report') },
  })
  report(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.steeringReport, parseInput(reportQuery, query, 'query'), actor);
  }
}
