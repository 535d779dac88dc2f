import type { NodeWrite } from '../../domain/plan-sync.js';
import { copyText } from './pod-copy.mapper.js';

/**
 * A node row to write as one line of PostgreSQL's COPY text format, built from the plan's {@link NodeWrite} as the
 * write streams it (a batch at a time: never every line at once) into the nodes' staging table (docs/node-sync.md).
 */

/** NODE_COPY_COLUMNS — the columns of {@link nodeCopyLine}, in order: the staging table's and the merge's. */
export const NODE_COPY_COLUMNS = [
  'name', 'uid', 'provider_id', 'instance_id', 'instance_type', 'zone', 'capacity_type', 'node_pool', 'ready', 'unschedulable',
  'state', 'taints', 'labels', 'annotations', 'conditions', 'alloc_cpu_milli', 'alloc_memory_bytes', 'alloc_gpu', 'alloc_pods',
  'req_cpu_milli', 'req_memory_bytes', 'req_gpu', 'pod_count', 'content_hash', 'resource_version', 'k8s_created_at',
] as const;

/** nodeCopyLine — the node's row in {@link NODE_COPY_COLUMNS} order, tab-separated (taints, labels, annotations, conditions as JSON). */
export function nodeCopyLine(w: NodeWrite): string {
  const r = w.row;
  return [
    r.name, r.uid, r.providerId, r.instanceId, r.instanceType, r.zone, r.capacityType, r.nodePool, r.ready, r.unschedulable,
    r.state, JSON.stringify(r.taints), JSON.stringify(r.labels), JSON.stringify(r.annotations), JSON.stringify(r.conditions),
    r.allocatable.cpuMilli, r.allocatable.memoryBytes, r.allocatable.gpu, r.allocatable.pods,
    r.requested.cpuMilli, r.requested.memoryBytes, r.requested.gpu, r.podCount, w.hash, w.resourceVersion, r.createdAt,
  ].map(copyText).join('\t');
}
