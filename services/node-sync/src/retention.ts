import type { RetentionSpec } from '@nodes-manager/platform';

/** node-sync's tables and how long each keeps its rows (docs/retention.md). Live nodes and pods are never deleted. */
export const nodeSyncRetention: RetentionSpec = {
  service: 'node-sync',
  rules: [
    { table: 'nodes', column: 'deleted_at', variable: 'RETENTION_DELETED_NODES_DAYS', dflt: 7, holds: 'nodes, kept a while after they are gone' },
    { table: 'pods', column: 'deleted_at', variable: 'DELETED_POD_RETENTION_HOURS', dflt: 24, holds: 'pods, kept a while after they are gone' },
    {
      table: 'node_lifetimes',
      column: 'deleted_at',
      variable: 'RETENTION_NODE_LIFETIMES_DAYS',
      dflt: 90,
      holds: 'when each node came and went, with its pool (the node-hours per pool)',
    },
  ],
  bounded: [],
};
