import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { pageShape, parseInput } from './validation.js';

const cordonsQuery = z.strictObject({ ...pageShape, verdict: z.enum(['uncordon', 'wait', 'skip']).optional() });
const eventsQuery = z.strictObject({ ...pageShape, node: z.string().min(1).optional(), action: z.string().min(1).optional() });

/** Cordons and scaling events — owned by the uncordon service. */
@Controller('api/v1')
export class UncordonController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('cordons')
  cordons(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.cordonsList, parseInput(cordonsQuery, query, 'query'), actor);
  }

  @Get('events')
  events(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.eventsList, parseInput(eventsQuery, query, 'query'), actor);
  }
}
