import type * as k8s from '@kubernetes/client-node';
import {
  AUTO_UNCORDON_OPT_OUT_ANNOTATION, DRAIN_OPERATION_ANNOTATION, EXCLUDE_FROM_LOAD_BALANCERS_LABEL_KEY, FENCING_LABEL, NTH_ACTION_LABEL_KEY,
  PRESSURE_LABEL, UNCORDON_REASON_ANNOTATION, UNCORDONED_AT_ANNOTATION,
} from '@nodes-manager/contracts';
import {
  LABEL_CAPACITY_TYPE, LABEL_EKS_CAPACITY_TYPE, LABEL_EKS_NODEGROUP, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_REGION, ZONE_LABELS,
} from '@nodes-manager/kube';
import type { Interner } from '@nodes-manager/platform';

/**
 * The node labels uncordon reads: the exclusions of the uncordon rule, the fencing and pressure opt-ins, and the
 * instance, zone, capacity type and pool of the rebalance ledger and the learned grace (each with its fallback).
 */
export const UNCORDON_NODE_LABELS: readonly string[] = [
  EXCLUDE_FROM_LOAD_BALANCERS_LABEL_KEY, NTH_ACTION_LABEL_KEY, FENCING_LABEL, PRESSURE_LABEL, ...ZONE_LABELS, LABEL_REGION,
  LABEL_INSTANCE_TYPE, 'beta.kubernetes.io/instance-type', LABEL_CAPACITY_TYPE, LABEL_EKS_CAPACITY_TYPE, LABEL_NODEPOOL, LABEL_EKS_NODEGROUP,
];
/** The node annotations uncordon reads: the opt-out, an active drain, and its own uncordon marks. */
export const UNCORDON_NODE_ANNOTATIONS: readonly string[] = [AUTO_UNCORDON_OPT_OUT_ANNOTATION, DRAIN_OPERATION_ANNOTATION, UNCORDONED_AT_ANNOTATION, UNCORDON_REASON_ANNOTATION];

const pick = (from: Record<string, string> | undefined, keys: readonly string[], intern?: Interner): Record<string, string> | undefined => {
  if (!from) return undefined;
  let out: Record<string, string> | undefined;
  for (const k of keys) {
    const v = from[k];
    if (v !== undefined) (out ??= {})[k] = intern ? intern.string(v) : v;
  }
  return out;
};

const ownsUnschedulable = (fieldsV1: any): boolean => typeof fieldsV1?.['f:spec'] === 'object' && fieldsV1['f:spec'] !== null && 'f:unschedulable' in fieldsV1['f:spec'];

/**
 * projectUncordonNode — a Node as the uncordon service's cache keeps it: a V1Node holding only what uncordon reads
 * (name, uid, resourceVersion, deletionTimestamp, the labels and annotations above, the managedFields entries that
 * own `spec.unschedulable` — the cordon's owner and time — reduced to that field, the cordon, taints, providerID and
 * the Ready condition). A full Node is about 13 KB (images, nodeInfo, addresses, every managedFields entry); this is
 * a few hundred bytes, and nothing else of the object survives into the cache.
 */
export function projectUncordonNode(raw: any, intern?: Interner): k8s.V1Node {
  const m = raw?.metadata ?? {};
  const labels = pick(m.labels, UNCORDON_NODE_LABELS, intern);
  const annotations = pick(m.annotations, UNCORDON_NODE_ANNOTATIONS);
  const owners = (m.managedFields ?? [])
    .filter((e: any) => ownsUnschedulable(e?.fieldsV1))
    .map((e: any) => ({
      ...(e.manager !== undefined ? { manager: e.manager } : {}),
      ...(e.operation !== undefined ? { operation: e.operation } : {}),
      ...(e.subresource !== undefined ? { subresource: e.subresource } : {}),
      ...(e.time !== undefined ? { time: e.time } : {}),
      fieldsV1: { 'f:spec': { 'f:unschedulable': {} } },
    }));
  const ready = (raw?.status?.conditions ?? []).find((c: any) => c?.type === 'Ready');
  const spec = raw?.spec ?? {};
  return {
    metadata: {
      name: m.name,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
      ...(owners.length ? { managedFields: owners } : {}),
    },
    spec: {
      ...(spec.unschedulable !== undefined ? { unschedulable: spec.unschedulable } : {}),
      ...(spec.taints?.length ? { taints: spec.taints.map((t: any) => ({ key: t.key, effect: t.effect, ...(t.value !== undefined ? { value: t.value } : {}), ...(t.timeAdded ? { timeAdded: t.timeAdded } : {}) })) } : {}),
      ...(spec.providerID ? { providerID: spec.providerID } : {}),
    },
    status: ready
      ? { conditions: [{ type: 'Ready', status: ready.status, ...(ready.reason ? { reason: ready.reason } : {}), ...(ready.lastTransitionTime ? { lastTransitionTime: ready.lastTransitionTime } : {}) }] }
      : {},
  } as k8s.V1Node;
}
