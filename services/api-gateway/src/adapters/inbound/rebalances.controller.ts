import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands, EVENT_DATA_SCHEMAS, REBALANCE_OUTCOMES } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { pageShape, parseInput } from './validation.js';

const isoTime = () => z.iso.datetime({ offset: true, error: 'must be an RFC 3339 time such as 2026-11-30T10:00:00Z' });
const window = {
  from: isoTime().optional(),
  to: isoTime().optional(),
};
const withOrderedWindow = <T extends z.ZodObject>(schema: T) =>
  schema.refine((q: { from?: string; to?: string }) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { message: 'must be after from', path: ['to'] });

const rebalancesShape = z.strictObject({
  ...pageShape,
  outcome: z.enum(REBALANCE_OUTCOMES, { error: `must be one of ${REBALANCE_OUTCOMES.join(', ')}` }).optional(),
  instanceType: z.string().min(1).max(64).optional(),
  zone: z.string().min(1).max(64).optional(),
  nodePool: z.string().min(1).max(253).optional(),
  ...window,
});
const rebalancesQuery = withOrderedWindow(rebalancesShape);
const summaryShape = z.strictObject(window);
const summaryQuery = withOrderedWindow(summaryShape);
const interruptionsShape = z.strictObject({ instanceType: z.string().min(1).max(64).optional(), zone: z.string().min(1).max(64).optional(), ...window });
const interruptionsQuery = withOrderedWindow(interruptionsShape);

/** The rebalance ledger — owned by the uncordon service. */
@Controller('api/v1/rebalances')
export class RebalancesController {
  constructor(private readonly fwd: Forwarder) {}

  @Get()
  @ApiRoute({ tag: 'rebalances', summary: 'The rebalance ledger: every Spot rebalance recommendation seen and what followed, newest first', description: 'Filters: `outcome`, `instanceType`, `zone`, `nodePool`, and `from`/`to` on the time the rebalance was seen. Keyset pagination: pass `nextCursor` back as `cursor`.', query: rebalancesShape, ok: { status: 200, description: 'A page of ledger rows, each with its evidence', schema: reply('rebalances.list') } })
  list(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.rebalancesList, parseInput(rebalancesQuery, query, 'query'), actor);
  }

  @Get('summary')
  @ApiRoute({ tag: 'rebalances', summary: 'Per Spot pool: how often a rebalance was followed by an interruption, lead times, node-hours given back', description: 'Per instance type × zone, rolled up by type, zone, node pool and the cluster. Default window: the last REBALANCE_FIGURES_DAYS days.', query: summaryShape, ok: { status: 200, description: 'The figures', schema: reply('rebalances.summary') } })
  summary(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.rebalancesSummary, parseInput(summaryQuery, query, 'query'), actor);
  }

  @Get('interruptions')
  @ApiRoute({ tag: 'rebalances', summary: 'Every Spot interruption, with or without a rebalance recommendation before it, oldest first', description: 'Filters: `instanceType`, `zone`, and `from`/`to` on the interruption time (default: the last REBALANCE_FIGURES_DAYS days). At most 10,000; `truncated` says when the window held more.', query: interruptionsShape, ok: { status: 200, description: 'The interruptions, each with its evidence and the rebalance it followed (if any)', schema: reply('interruptions.list') } })
  interruptions(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.interruptionsList, parseInput(interruptionsQuery, query, 'query'), actor);
  }

  @Get('interruption-rates')
  @ApiRoute({ tag: 'rebalances', summary: 'Per Spot pool: interruptions per 1,000 node-hours, with its 95% exact Poisson interval', description: 'Interruptions with and without a recommendation, over the node-hours node-sync recorded for the pool (instance type × zone, Spot). Default window: the last REBALANCE_FIGURES_DAYS days.', query: summaryShape, ok: { status: 200, description: 'The rates', schema: reply('interruptions.rates') } })
  rates(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.interruptionsRates, parseInput(summaryQuery, query, 'query'), actor);
  }
}
