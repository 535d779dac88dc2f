import type { V1ManagedFieldsEntry, V1Node } from '@kubernetes/client-node';
import { apiTime, readinessOf, type NodeReadiness } from '@nodes-manager/kube';

/** NodeTaint — a taint as the uncordon rule sees it; `timeAdded` kept (ISO 8601) so a patch can write it back. */
export interface NodeTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

/** ManagedFieldsEntrySnapshot — one `metadata.managedFields` entry; `fieldsV1` is the FieldsV1 trie as JSON. */
export interface ManagedFieldsEntrySnapshot {
  readonly manager?: string;
  readonly operation?: string;
  readonly subresource?: string;
  readonly time?: Date;
  readonly fieldsV1?: unknown;
}

export type { ConditionStatus } from '@nodes-manager/kube';

/**
 * CordonedNodeSnapshot — the lean view of one fresh read of a Node that `decideUncordon` needs.
 * `ready` is absent when the Node has no Ready condition.
 */
export interface CordonedNodeSnapshot {
  readonly name: string;
  readonly resourceVersion: string;
  readonly unschedulable: boolean;
  readonly taints: readonly NodeTaint[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly deletionTimestamp?: Date;
  readonly managedFields: readonly ManagedFieldsEntrySnapshot[];
  readonly ready?: NodeReadiness;
}

/**
 * cordonedNodeSnapshot — projects a V1Node read from the API into the snapshot the rule takes.
 * The client deserialises times into `Date`s, a raw JSON read leaves strings: both are accepted.
 */
export function cordonedNodeSnapshot(node: V1Node): CordonedNodeSnapshot {
  const ready = readinessOf(node);
  const deletion = apiTime(node.metadata?.deletionTimestamp);
  return {
    name: node.metadata?.name ?? '',
    resourceVersion: node.metadata?.resourceVersion ?? '',
    unschedulable: node.spec?.unschedulable === true,
    taints: (node.spec?.taints ?? []).map((t) => {
      const added = apiTime(t.timeAdded);
      return {
        key: t.key,
        effect: t.effect,
        ...(t.value !== undefined ? { value: t.value } : {}),
        ...(added ? { timeAdded: added.toISOString() } : {}),
      };
    }),
    labels: { ...(node.metadata?.labels ?? {}) },
    annotations: { ...(node.metadata?.annotations ?? {}) },
    ...(deletion ? { deletionTimestamp: deletion } : {}),
    managedFields: (node.metadata?.managedFields ?? []).map(managedFieldsEntrySnapshot),
    ...(ready ? { ready } : {}),
  };
}

function managedFieldsEntrySnapshot(entry: V1ManagedFieldsEntry): ManagedFieldsEntrySnapshot {
  const time = apiTime(entry.time);
  return {
    ...(entry.manager !== undefined ? { manager: entry.manager } : {}),
    ...(entry.operation !== undefined ? { operation: entry.operation } : {}),
    ...(entry.subresource !== undefined ? { subresource: entry.subresource } : {}),
    ...(time ? { time } : {}),
    ...(entry.fieldsV1 !== undefined ? { fieldsV1: entry.fieldsV1 as unknown } : {}),
  };
}
