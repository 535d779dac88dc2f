import type { CordonedNodeSnapshot, ManagedFieldsEntrySnapshot, NodeTaint } from '../src/auto-uncordon/domain/cordoned-node.js';
import type { CordonObservation, UncordonRuleConfig } from '../src/auto-uncordon/domain/decide-uncordon.js';

export const T0 = new Date('2026-03-01T10:00:00Z');
export const minutes = (n: number): number => n * 60_000;
export const at = (offsetMinutes: number, base: Date = T0): Date => new Date(base.getTime() + minutes(offsetMinutes));

export const taint = (key: string, effect = 'NoSchedule', value?: string): NodeTaint => ({
  key,
  effect,
  ...(value !== undefined ? { value } : {}),
});
export const CORDON_TAINT = taint('node.kubernetes.io/unschedulable');
export const REBALANCE_TAINT = taint('aws-node-termination-handler/rebalance-recommendation');

/** cordonEntry — a managedFields entry owning `f:spec.f:unschedulable` (and the taints, as NTH's does); `null`: no time. */
export const cordonEntry = (manager: string, time: Date | null = T0): ManagedFieldsEntrySnapshot => ({
  manager,
  operation: 'Update',
  ...(time ? { time } : {}),
  fieldsV1: { 'f:spec': { 'f:unschedulable': {}, 'f:taints': {} } },
});

/** kubeletEntry — a managedFields entry that owns status only, as the kubelet's does. */
export const kubeletEntry = (time: Date = at(-120)): ManagedFieldsEntrySnapshot => ({
  manager: 'kubelet',
  operation: 'Update',
  subresource: 'status',
  time,
  fieldsV1: { 'f:status': { 'f:conditions': {} } },
});

/** aCordonedNode — by default a node every clause lets go: NTH cordoned it at T0, Ready since an hour before. */
export function aCordonedNode(overrides: Partial<CordonedNodeSnapshot> = {}): CordonedNodeSnapshot {
  return {
    name: 'ip-10-0-1-23.ec2.internal',
    resourceVersion: '4711',
    unschedulable: true,
    taints: [CORDON_TAINT],
    labels: { 'karpenter.sh/capacity-type': 'spot' },
    annotations: {},
    managedFields: [kubeletEntry(), cordonEntry('node-termination-handler', T0)],
    ready: { status: 'True', lastTransitionTime: at(-60) },
    ...overrides,
  };
}

export const anObservation = (overrides: Partial<CordonObservation> = {}): CordonObservation => ({
  firstSeenCordonedAt: at(1),
  uncordonedAt: [],
  ...overrides,
});

export const aConfig = (overrides: Partial<UncordonRuleConfig> = {}): UncordonRuleConfig => ({
  enabled: true,
  dryRun: false,
  gracePeriodMinutes: 15,
  cordonManagers: ['node-termination-handler'],
  maxPerCycle: 5,
  ...overrides,
});
