import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { Commands, FENCING_ACTIONS, FENCING_REASONS, FencingStatus, PRESSURE_MODES } from '@nodes-manager/contracts';
import { Actor } from '@nodes-manager/platform';
import { Forwarder } from './forwarder.js';
import { ApiRoute } from './api-docs.js';
import { parseInput, q } from './validation.js';

const fencingQuery = z.strictObject({ limit: q.intFrom(1, 500).default(100) });
const pressureQuery = z.strictObject({
  node: z
    .string()
    .max(253, 'must be at most 253 characters')
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a Kubernetes node name (DNS-1123 subdomain)')
    .optional(),
});

const nullable = (s: Record<string, unknown>) => ({ oneOf: [s, { type: 'null' }] });
const share = { type: 'object', required: ['dead', 'total', 'percent', 'suspended'], properties: { zone: { type: 'string' }, dead: { type: 'integer' }, total: { type: 'integer' }, percent: { type: 'number' }, suspended: { type: 'boolean' } } };
const psiAverages = { type: 'object', required: ['avg10', 'avg60'], properties: { avg10: { type: 'number' }, avg60: { type: 'number' } } };
const psiResource = { type: 'object', required: ['some', 'full'], properties: { some: psiAverages, full: psiAverages } };

export const FENCING_VIEW_SCHEMA = {
  type: 'object',
  required: ['enabled', 'dryRun', 'action', 'leaseTimeoutSeconds', 'maxUnhealthyPercent', 'suspended', 'overall', 'zones', 'verdicts', 'operations', 'evaluatedAt'],
  properties: {
    enabled: { type: 'boolean' },
    dryRun: { type: 'boolean' },
    action: { type: 'string', enum: [...FENCING_ACTIONS] },
    leaseTimeoutSeconds: { type: 'integer' },
    maxUnhealthyPercent: { type: 'number' },
    suspended: { type: 'boolean', description: 'a suspected partition holds fencing back (overall or in some zone)' },
    overall: share,
    zones: { type: 'array', items: share },
    verdicts: {
      type: 'array',
      description: 'every node that is not Ready, and why it was or was not fenced',
      items: {
        type: 'object',
        required: ['node', 'decision', 'reason', 'message', 'optedIn', 'ready', 'evaluatedAt'],
        properties: {
          node: { type: 'string' },
          zone: { type: ['string', 'null'] },
          decision: { type: 'string', enum: ['fence', 'wait', 'skip'] },
          reason: { type: 'string', enum: [...FENCING_REASONS] },
          message: { type: 'string' },
          optedIn: { type: 'boolean' },
          ready: { type: 'string', enum: ['False', 'Unknown'] },
          notReadySince: { type: ['string', 'null'], format: 'date-time' },
          leaseRenewedAt: { type: ['string', 'null'], format: 'date-time' },
          leaseStaleSeconds: { type: ['integer', 'null'] },
          evaluatedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
    operations: {
      type: 'array',
      description: 'the latest fencing operations, newest first',
      items: {
        type: 'object',
        required: ['id', 'node', 'nodeUid', 'instanceId', 'action', 'dryRun', 'status', 'podsDeleted', 'actor', 'steps', 'startedAt', 'updatedAt'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          node: { type: 'string' },
          nodeUid: { type: 'string' },
          instanceId: { type: 'string' },
          zone: { type: ['string', 'null'] },
          action: { type: 'string', enum: [...FENCING_ACTIONS] },
          dryRun: { type: 'boolean' },
          status: { type: 'string', enum: Object.values(FencingStatus) },
          reason: { type: 'string' },
          message: { type: 'string' },
          instanceState: { type: 'string' },
          podsDeleted: { type: 'integer' },
          actor: { type: 'string' },
          steps: { type: 'array', items: { type: 'object', required: ['status', 'at'], properties: { status: { type: 'string' }, at: { type: 'string', format: 'date-time' }, detail: { type: 'string' } } } },
          startedAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
          finishedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
    evaluatedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

export const NODE_PRESSURE_SCHEMA = {
  type: 'object',
  required: ['node', 'mode', 'status', 'cpu', 'memory', 'io', 'highSamples', 'sampledAt', 'lastRelief'],
  properties: {
    node: { type: 'string' },
    mode: { type: 'string', enum: [...PRESSURE_MODES] },
    status: { type: 'string', enum: ['ok', 'unknown', 'unreachable'], description: '`unknown`: the kubelet reports no PSI' },
    cpu: nullable(psiResource),
    memory: nullable(psiResource),
    io: nullable(psiResource),
    highSamples: { type: 'integer', description: 'consecutive readings with memory full avg10 above PRESSURE_MEMORY_FULL_THRESHOLD' },
    sampledAt: { type: 'string', format: 'date-time' },
    lastRelief: nullable({ type: 'object', required: ['pod', 'at', 'outcome'], properties: { pod: { type: 'string' }, at: { type: 'string', format: 'date-time' }, outcome: { type: 'string' } } }),
  },
};

/** Fencing and node pressure — owned by the uncordon service (docs/fencing.md, docs/pressure.md). */
@Controller('api/v1')
export class NodeSafetyController {
  constructor(private readonly fwd: Forwarder) {}

  @Get('fencing')
  @ApiRoute({ tag: 'fencing', summary: 'Fencing of hung nodes: settings, partition shares, verdicts and operations', description: 'Why each node that is not Ready was, or was not, fenced (stopped or terminated through EC2 and tainted out-of-service), and the latest fencing operations with their recorded steps.', query: fencingQuery, ok: { status: 200, description: 'The fencing view', schema: FENCING_VIEW_SCHEMA } })
  fencing(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.fencingStatus, parseInput(fencingQuery, query, 'query'), actor);
  }

  @Get('pressure')
  @ApiRoute({ tag: 'pressure', summary: 'Pressure Stall Information of nodes opted in to pressure watching', description: 'The last PSI reading (some/full avg10 and avg60 of CPU, memory and I/O) of every node labelled `nodes-manager/pressure: watch|relieve`, or of one node; `unknown` where the kubelet reports no PSI.', query: pressureQuery, ok: { status: 200, description: 'PSI per node', schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: NODE_PRESSURE_SCHEMA } } } } })
  pressure(@Query() query: unknown, @Actor() actor: string) {
    return this.fwd.send(Commands.pressureList, parseInput(pressureQuery, query, 'query'), actor);
  }
}
