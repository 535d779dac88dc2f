import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { reply } from './response-schemas.js';
import { parseInput, q } from './validation.js';

const fencingQuery = z.strictObject({ limit: q.intFrom(1, 500).default(100) });
const pressureQuery = z.strictObject({
  node: z
    .string()
    .max(253, 'must be at most 253 characters')
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a Kubernetes node name (DNS-1123 subdomain)')
    .optional(),
});

/** Fencing and node pressure — owned by the uncordon service (docs/fencing.md, docs/pressure.md). */
@Controller('api/v1')
export class NodeSafetyController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('fencing')
  @ApiRoute({ tag: 'fencing', summary: 'Fencing of hung nodes: settings, partition shares, verdicts and operations', description: 'Why each node that is not Ready was, or was not, fenced (stopped or terminated through EC2 and tainted out-of-service), and the latest fencing operations with their recorded steps.', query: fencingQuery, ok: { status: 200, description: 'The fencing view', schema: reply('fencing.status') } })
  fencing(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.fencingStatus, parseInput(fencingQuery, query, 'query'), actor);
  }

  @Get('pressure')
  @ApiRoute({ tag: 'pressure', summary: 'Pressure Stall Information of nodes opted in to pressure watching', description: 'The last PSI reading (some/full avg10 and avg60 of CPU, memory and I/O) of every node labelled `nodes-manager/pressure: watch|relieve`, or of one node; `unknown` where the kubelet reports no PSI.', query: pressureQuery, ok: { status: 200, description: 'PSI per node', schema: reply('pressure.list') } })
  pressure(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.pressureList, parseInput(pressureQuery, query, 'query'), actor);
  }
}
