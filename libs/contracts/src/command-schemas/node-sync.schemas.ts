import { CAPACITY_TYPES, NODE_STATES } from '../api.js';
import { arrayOf, bool, closed, int, mapOf, nullable, nullableStr, num, oneOf, open, page, str, time, uuid, type JsonSchema } from '../json-schema.js';
import { cursor, limit, objectName, type CommandSchema } from './command-schema.js';

const resources = open({ cpuMilli: int(), memoryBytes: int(), gpu: int(), pods: int() }, ['cpuMilli', 'memoryBytes', 'gpu', 'pods']);
const taint = open({ key: str(), value: nullableStr(), effect: str(), timeAdded: str() }, ['value', 'timeAdded']);
const condition = open({ type: str(), status: str(), reason: nullableStr(), lastTransitionTime: nullableStr() }, ['reason', 'lastTransitionTime']);

/** NODE_VIEW_SCHEMA — a node as node-sync projects it (docs/node-sync.md). */
export const NODE_VIEW_SCHEMA: JsonSchema = open(
  {
    id: uuid(),
    name: str(),
    uid: str(),
    providerId: nullableStr(),
    instanceId: nullableStr(),
    instanceType: nullableStr(),
    zone: nullableStr(),
    capacityType: nullable(oneOf(CAPACITY_TYPES)),
    nodePool: nullableStr(),
    state: oneOf(NODE_STATES),
    ready: bool(),
    unschedulable: bool(),
    taints: arrayOf(taint),
    labels: mapOf(str()),
    conditions: arrayOf(condition),
    allocatable: resources,
    requested: resources,
    podCount: int(),
    createdAt: nullableStr(),
    firstSeenAt: time(),
    lastSeenAt: time(),
    changedAt: time(),
    deletedAt: nullableStr(),
  },
  ['conditions', 'allocatable', 'requested', 'podCount', 'createdAt', 'firstSeenAt', 'lastSeenAt', 'changedAt', 'deletedAt'],
);

const podView = open(
  { uid: str(), namespace: str(), name: str(), phase: nullableStr(), workloadClass: nullableStr(), ownerKind: nullableStr(), ownerName: nullableStr() },
  ['uid', 'phase', 'workloadClass', 'ownerKind', 'ownerName'],
);

/** NODE_DETAIL_SCHEMA — one node with its annotations and running pods (`node.get`). */
export const NODE_DETAIL_SCHEMA: JsonSchema = {
  ...NODE_VIEW_SCHEMA,
  properties: { ...(NODE_VIEW_SCHEMA['properties'] as object), annotations: mapOf(str()), pods: arrayOf(podView) },
  required: [...(NODE_VIEW_SCHEMA['required'] as string[]), 'pods'],
};

const poolNodeHours = open(
  {
    instanceType: nullableStr(),
    zone: nullableStr(),
    capacityType: nullableStr(),
    nodes: int('Node objects that lived in the pool in the window'),
    nodeHours: num('the time they lived in it, in hours'),
    hours: arrayOf(open({ from: time("the clock hour's start"), nodeHours: num() }), 'per clock hour, when asked with hourly'),
  },
  ['hours'],
);

export const NODE_SYNC_COMMAND_SCHEMAS = {
  'nodehours.list': {
    summary: 'Node-hours per pool (instance type × zone × capacity type) over a window, from the record of when each node came and went; per clock hour with hourly.',
    request: closed({ from: time("the window's start"), to: time("its end (default now)"), capacityType: oneOf(CAPACITY_TYPES), hourly: bool() }, ['to', 'capacityType', 'hourly']),
    reply: open({ from: time(), to: time(), pools: arrayOf(poolNodeHours) }),
  },
  'nodes.list': {
    summary: 'Nodes with their state, resources and pod counts, a keyset page at a time; filters state, zone, type, capacity type, pool.',
    request: closed(
      {
        limit: limit(),
        cursor,
        state: oneOf(NODE_STATES),
        zone: str(),
        instanceType: str(),
        capacityType: oneOf(CAPACITY_TYPES),
        nodePool: str(),
        includeDeleted: bool('also nodes that are gone'),
        sort: oneOf(['name', '-name', 'created', '-created']),
      },
      ['cursor', 'state', 'zone', 'instanceType', 'capacityType', 'nodePool', 'includeDeleted'],
    ),
    reply: page(NODE_VIEW_SCHEMA),
  },
  'node.get': {
    summary: 'One node, by name or id, with its annotations and running pods.',
    request: closed({ id: objectName('a node name, or a node id (uuid)') }),
    reply: NODE_DETAIL_SCHEMA,
  },
} as const satisfies Record<string, CommandSchema>;
