import type { ClusterHeartbeat, SteeringModeName } from '@nodes-manager/contracts';

/** What a beat gathered: each count from its owner, or the reason it has none (docs/fleet.md#the-cluster-heartbeat). */
export interface ClusterCounts {
  nodes: { total: number; spot: number } | { error: string };
  cordonsWaiting: number | { error: string };
  pools: { state: string; n: number }[];
  decidedAt: Date | null;
}

/** countNodes — nodes and Spot nodes (capacity type `spot`, as node-sync records the Karpenter or EKS label). */
export function countNodes(nodes: ReadonlyArray<{ capacityType: string | null }>): { total: number; spot: number } {
  return { total: nodes.length, spot: nodes.filter((n) => n.capacityType === 'spot').length };
}

/**
 * clusterHeartbeatOf — the `cluster.heartbeat` data: a count whose owner did not answer is null (a beat never reports
 * a guess as a count); pools in a state this build does not know are left out of the three it reports.
 */
export function clusterHeartbeatOf(c: ClusterCounts, o: { version: string; intervalSeconds: number; mode: SteeringModeName }): ClusterHeartbeat {
  const pool = (state: string) => c.pools.filter((p) => p.state === state).reduce((sum, p) => sum + p.n, 0);
  return {
    version: o.version,
    intervalSeconds: o.intervalSeconds,
    nodes: 'error' in c.nodes ? null : c.nodes.total,
    spotNodes: 'error' in c.nodes ? null : c.nodes.spot,
    cordonsWaiting: typeof c.cordonsWaiting === 'number' ? c.cordonsWaiting : null,
    steering: { mode: o.mode, pools: { healthy: pool('healthy'), watch: pool('watch'), avoid: pool('avoid') }, decidedAt: c.decidedAt ? c.decidedAt.toISOString() : null },
  };
}
