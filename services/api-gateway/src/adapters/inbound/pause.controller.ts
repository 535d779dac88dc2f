import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { Commands, PauseScopes, type PauseRequest } from '@nodes-manager/contracts';
import { Actor, RequiresWrite } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { parseInput, str } from './validation.js';

// The shape here; that `until` is in the future and at most 30 days ahead is checked by uncordon on its clock (400 naming `until`).
const pauseBody = z.strictObject({
  reason: str().trim().min(1, 'is required: say why disruptive actions are paused').max(500, 'must be at most 500 characters'),
  until: z.iso.datetime({ offset: true, error: 'must be an RFC 3339 time, e.g. 2026-12-01T18:00:00Z' }).optional(),
  scope: z.enum(PauseScopes, { error: `must be one of ${PauseScopes.join(', ')}` }).optional(),
});

/** The fleet-wide pause of disruptive actions — kept by the uncordon service (docs/pause.md). */
@Controller('api/v1/pause')
export class PauseController {
  constructor(private readonly fwd: Forwarder) {}

  @Get()
  @ApiRoute({ tag: 'pause', summary: 'Whether disruptive actions are paused fleet-wide, by whom, why and until when', description: 'The pause in force (`null` when running) and its latest 20 changes, newest first.', ok: { status: 200, description: 'The pause', schema: reply('pause.get') } })
  get(@Actor() actor: string) {
    return this.fwd.send(Commands.pauseGet, {}, actor);
  }

  @Post()
  @RequiresWrite()
  @HttpCode(200)
  @ApiRoute({ tag: 'pause', summary: 'Pause every disruptive action fleet-wide', description: 'Within one scan interval no replica of any service starts an optimizer drain, consolidation, fence, pressure relief, drain step or steering change; auto-uncordon goes on unless `scope` is `all`. Pausing while paused replaces the pause. Recorded with the caller as who paused.', write: true, body: pauseBody, bodyExample: { reason: 'CNI rollout misbehaving', until: '2026-12-01T18:00:00Z' }, ok: { status: 200, description: 'The pause now in force', schema: reply('pause.set') } })
  pause(@Body() body: unknown, @Actor() actor: string) {
    const data: PauseRequest = parseInput(pauseBody, body, 'body');
    return this.fwd.send(Commands.pauseSet, data, actor);
  }

  @Delete()
  @RequiresWrite()
  @ApiRoute({ tag: 'pause', summary: 'Resume disruptive actions', description: 'Ends the pause in force, recorded with the caller; resuming while running records nothing and answers the same state.', write: true, ok: { status: 200, description: 'The pause state after resuming', schema: reply('pause.clear') } })
  resume(@Actor() actor: string) {
    return this.fwd.send(Commands.pauseClear, {}, actor);
  }
}
