import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { pageShape, parseInput, q } from './validation.js';

const cordonsQuery = z.strictObject({ ...pageShape, verdict: q.oneOf(['uncordon', 'wait', 'skip']).optional() });
const eventsQuery = z.strictObject({ ...pageShape, node: q.nodeName.optional(), action: q.identifier.optional() });

/** Cordons and scaling events — owned by the uncordon service. */
@Controller('api/v1')
export class UncordonController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('cordons')
  @ApiRoute({ tag: 'cordons', summary: 'Every cordoned node with the auto-uncordon verdict and its reason', description: 'The "why" view of the auto-uncordon rule (docs/auto-uncordon.md): `uncordon` (will be reversed now), `wait` (ours; `uncordonAt` says when), `skip` (not ours, or not now — `reason` and `evidence` say which).', query: cordonsQuery, ok: { status: 200, description: 'A page of cordoned nodes', schema: reply('cordons.list') } })
  cordons(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.cordonsList, parseInput(cordonsQuery, query, 'query'), actor);
  }

  @Get('events')
  @ApiRoute({ tag: 'events', summary: 'Scaling events (node actions: uncordons, drains), newest first', query: eventsQuery, ok: { status: 200, description: 'A page of scaling events', schema: reply('events.list') } })
  events(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.eventsList, parseInput(eventsQuery, query, 'query'), actor);
  }
}
