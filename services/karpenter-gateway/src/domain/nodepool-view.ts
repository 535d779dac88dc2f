import { CAPACITY_TYPE_LABEL, DO_NOT_DISRUPT, type NodeClaim, type NodePool } from './nodepool.types.js';

/** NodePoolSummary — one NodePool as the list endpoint shows it. */
export interface NodePoolSummary {
  name: string;
  weight: number | null;
  nodeClassRef: unknown;
  limits: Record<string, string | number>;
  disruption: unknown;
  resources: Record<string, string>;
  ready: boolean | null;
  createdAt: string | null;
  resourceVersion: string | null;
}

export interface NodeClaimView {
  name: string;
  nodeName: string | null;
  capacityType: string | null;
  instanceType: string | null;
  zone: string | null;
  ready: boolean | null;
  deleting: boolean;
  doNotDisrupt: boolean;
  createdAt: string | null;
}

const condition = (conds: { type: string; status: string }[] | undefined, type: string): boolean | null => {
  const c = conds?.find((x) => x.type === type);
  return c ? c.status === 'True' : null;
};

export function summarizeNodePool(p: NodePool): NodePoolSummary {
  return {
    name: p.metadata.name,
    weight: p.spec?.weight ?? null,
    nodeClassRef: p.spec?.template?.spec?.nodeClassRef ?? null,
    limits: p.spec?.limits ?? {},
    disruption: p.spec?.disruption ?? null,
    resources: p.status?.resources ?? {},
    ready: condition(p.status?.conditions, 'Ready'),
    createdAt: p.metadata.creationTimestamp ?? null,
    resourceVersion: p.metadata.resourceVersion ?? null,
  };
}

export function viewNodeClaim(c: NodeClaim): NodeClaimView {
  const labels = c.metadata.labels ?? {};
  return {
    name: c.metadata.name,
    nodeName: c.status?.nodeName ?? null,
    capacityType: labels[CAPACITY_TYPE_LABEL] ?? null,
    instanceType: labels['node.kubernetes.io/instance-type'] ?? null,
    zone: labels['topology.kubernetes.io/zone'] ?? null,
    ready: condition(c.status?.conditions, 'Ready'),
    deleting: !!c.metadata.deletionTimestamp,
    doNotDisrupt: c.metadata.annotations?.[DO_NOT_DISRUPT] === 'true',
    createdAt: c.metadata.creationTimestamp ?? null,
  };
}

/** NodePoolDetail — one NodePool with what its NodeClaims say: how many, the capacity-type mix, the nodes. */
export interface NodePoolDetail {
  karpenterInstalled: true;
  nodePool: NodePool;
  summary: NodePoolSummary;
  nodeClaims: { count: number; deleting: number; capacityTypes: Record<string, number>; nodes: string[] };
}

export function detailNodePool(p: NodePool, claims: readonly NodeClaim[]): NodePoolDetail {
  const views = claims.map(viewNodeClaim);
  const capacityTypes: Record<string, number> = {};
  for (const v of views) {
    const k = v.capacityType ?? 'unknown';
    capacityTypes[k] = (capacityTypes[k] ?? 0) + 1;
  }
  return {
    karpenterInstalled: true,
    nodePool: p,
    summary: summarizeNodePool(p),
    nodeClaims: {
      count: views.length,
      deleting: views.filter((v) => v.deleting).length,
      capacityTypes,
      nodes: views.flatMap((v) => (v.nodeName ? [v.nodeName] : [])).sort(),
    },
  };
}
