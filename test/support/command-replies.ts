import { DEFAULT_DRAIN_OPTIONS, type DrainOperation, type DrainStatus, type NodeDetail } from '@nodes-manager/contracts';

/**
 * Builders of command replies as the real services answer them (their reply schemas in libs/contracts), for the
 * hand-written stand-ins of services in tests: a stand-in's answer is checked against the contract like a real one.
 */

/** aDrainOperation — a drain as the uncordon service answers `node.drain` / `drain.get`. */
export const aDrainOperation = (o: Partial<DrainOperation> & { status?: DrainStatus } = {}): DrainOperation => ({
  id: '00000000-0000-4000-8000-000000000000',
  node: 'ip-10-0-0-1.ec2.internal',
  status: 'pending',
  actor: 'someone',
  options: { ...DEFAULT_DRAIN_OPTIONS },
  progress: {},
  startedAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...o,
});

/** aNodeDetail — a node as node-sync answers `node.get`. */
export const aNodeDetail = (o: Partial<NodeDetail> = {}): NodeDetail => ({
  id: '00000000-0000-4000-8000-000000000001',
  name: 'ip-10-0-0-1.ec2.internal',
  uid: 'u-1',
  providerId: null,
  instanceId: null,
  instanceType: 'm5.large',
  zone: 'us-east-1a',
  capacityType: 'spot',
  nodePool: null,
  state: 'Ready',
  ready: true,
  unschedulable: false,
  taints: [],
  labels: {},
  conditions: [],
  allocatable: { cpuMilli: 2000, memoryBytes: 8_000_000_000, gpu: 0, pods: 29 },
  requested: { cpuMilli: 0, memoryBytes: 0, gpu: 0 },
  podCount: 0,
  createdAt: null,
  firstSeenAt: '2026-01-01T00:00:00.000Z',
  lastSeenAt: '2026-01-01T00:00:00.000Z',
  changedAt: '2026-01-01T00:00:00.000Z',
  deletedAt: null,
  annotations: {},
  pods: [],
  ...o,
});
