import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands, EVENT_DATA_SCHEMAS, REBALANCE_OUTCOMES } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { page } from './response-schemas.js';
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

type Schema = Record<string, unknown>;
const RESOLVED = EVENT_DATA_SCHEMAS['rebalance.resolved'] as { properties: Record<string, Schema> };
/** A ledger row: the resolved event's fields, with the outcomes an open row can have too. */
const REBALANCE_SCHEMA: Schema = {
  type: 'object',
  description: 'One Spot rebalance recommendation seen on a node and what followed, with every piece of evidence (docs/rebalance-ledger.md).',
  properties: {
    ...RESOLVED.properties,
    outcome: { type: 'string', enum: [...REBALANCE_OUTCOMES], description: 'observed, uncordoned and recordoned are open; interrupted, removed and survived final' },
    resolved: { type: 'boolean' },
    resolvedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};
const figures: Schema = {
  type: 'object',
  properties: {
    rebalances: { type: 'integer' },
    open: { type: 'integer' },
    outcomes: { type: 'object', additionalProperties: { type: 'integer' } },
    samples: { type: 'integer', description: 'interrupted + survived (removed rows are censored)' },
    interrupted: { type: 'integer' },
    interruptedShare: { type: ['number', 'null'], description: 'interrupted / samples' },
    interval95: { type: ['array', 'null'], items: { type: 'number' }, description: '95% Wilson score interval of the share' },
    leadTimeMinutes: { type: ['object', 'null'], properties: { samples: { type: 'integer' }, median: { type: 'number' }, p90: { type: 'number' } } },
    nodeHoursGivenBack: { type: 'number', description: 'time auto-uncordon gave back before the node ended, was cordoned again or the horizon passed' },
  },
};
const grouped = (key: string[]): Schema => ({ type: 'array', items: { allOf: [figures, { type: 'object', properties: Object.fromEntries(key.map((k) => [k, { type: ['string', 'null'] }])) }] } });
const SUMMARY_SCHEMA: Schema = {
  type: 'object',
  properties: {
    horizonHours: { type: 'number' },
    from: { type: ['string', 'null'], format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    cluster: figures,
    byPool: grouped(['instanceType', 'zone']),
    byInstanceType: grouped(['instanceType']),
    byZone: grouped(['zone']),
    byNodePool: grouped(['nodePool']),
  },
};

/** The rebalance ledger — owned by the uncordon service. */
@Controller('api/v1/rebalances')
export class RebalancesController {
  constructor(private readonly fwd: Forwarder) {}

  @Get()
  @ApiRoute({ tag: 'rebalances', summary: 'The rebalance ledger: every Spot rebalance recommendation seen and what followed, newest first', description: 'Filters: `outcome`, `instanceType`, `zone`, `nodePool`, and `from`/`to` on the time the rebalance was seen. Keyset pagination: pass `nextCursor` back as `cursor`.', query: rebalancesShape, ok: { status: 200, description: 'A page of ledger rows, each with its evidence', schema: page(REBALANCE_SCHEMA) } })
  list(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.rebalancesList, parseInput(rebalancesQuery, query, 'query'), actor);
  }

  @Get('summary')
  @ApiRoute({ tag: 'rebalances', summary: 'Per Spot pool: how often a rebalance was followed by an interruption, lead times, node-hours given back', description: 'Per instance type × zone, rolled up by type, zone, node pool and the cluster. Default window: the last REBALANCE_FIGURES_DAYS days.', query: summaryShape, ok: { status: 200, description: 'The figures', schema: SUMMARY_SCHEMA } })
  summary(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.rebalancesSummary, parseInput(summaryQuery, query, 'query'), actor);
  }
}
