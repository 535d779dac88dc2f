/** The `cluster.heartbeat` event's data (docs/fleet.md#the-cluster-heartbeat). Data only. */

/**
 * NODES_MANAGER_VERSION — the version this build of nodes-manager is, as a cluster's heartbeat reports it; equal to the
 * root package.json's `version` (checked in cluster-heartbeat.spec.ts).
 */
export const NODES_MANAGER_VERSION = '0.1.0';

export type SteeringModeName = 'off' | 'plan' | 'execute';

/** ClusterHeartbeat — what one beat says: a count is null when the service that owns it did not answer. */
export interface ClusterHeartbeat {
  version: string;
  intervalSeconds: number;
  nodes: number | null;
  spotNodes: number | null;
  cordonsWaiting: number | null;
  steering: { mode: SteeringModeName; pools: { healthy: number; watch: number; avoid: number }; decidedAt: string | null };
}
