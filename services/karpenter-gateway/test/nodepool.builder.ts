import { mergePatch } from '../src/domain/merge-patch.js';
import type { NodePool } from '../src/domain/nodepool.types.js';

/** aNodePool — a valid karpenter.sh/v1 NodePool; `over` is merged in (RFC 7386: null removes a field). */
export function aNodePool(over: Record<string, unknown> = {}): NodePool {
  const base = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'general' },
    spec: {
      template: {
        metadata: { labels: { team: 'platform' } },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
            { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] },
          ],
          expireAfter: '720h',
        },
      },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
      limits: { cpu: '1000', memory: '1000Gi' },
      weight: 10,
    },
  };
  return mergePatch(base, over) as NodePool;
}

/** withRequirement — a pool whose only requirement is `r`. */
export const withRequirement = (r: Record<string, unknown>): NodePool => {
  const p = aNodePool();
  (p.spec.template.spec as { requirements: unknown[] }).requirements = [r];
  return p;
};

/** aNodeClaim — a NodeClaim of `pool` running on `node`. */
export function aNodeClaim(name: string, pool: string, node: string, o: { capacityType?: string; annotations?: Record<string, string>; deleting?: boolean } = {}) {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': pool, 'karpenter.sh/capacity-type': o.capacityType ?? 'spot', 'node.kubernetes.io/instance-type': 'm5.large', 'topology.kubernetes.io/zone': 'us-east-1a' },
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['karpenter.sh/termination'] } : {}),
    },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
    status: { nodeName: node, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
