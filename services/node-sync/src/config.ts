import { assertRetention, commonShape, COMMON_SECRETS, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig, retentionShape } from '@nodes-manager/platform';
import { nodeSyncRetention } from './retention.js';

/** node-sync's configuration (README table). */
export const nodeSyncConfigSpec = defineConfigSpec({
  service: 'node-sync',
  shape: {
    ...commonShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['node-sync']),
    KUBECONFIG: env.optionalString(),
    SYNC_PAGE_SIZE: env.number({ dflt: 500, min: 10, max: 5000, int: true }),
    /** A burst of node/pod changes is written once, this long after the first change. */
    SYNC_DEBOUNCE_MS: env.number({ dflt: 500, min: 0, max: 60_000, int: true }),
    // How long deleted nodes and pods are kept (docs/retention.md): DELETED_POD_RETENTION_HOURS, RETENTION_DELETED_NODES_DAYS.
    ...retentionShape(nodeSyncRetention),
  },
  secrets: [...COMMON_SECRETS],
});

export type NodeSyncConfig = ReturnType<typeof loadNodeSyncConfig>;
export const loadNodeSyncConfig = (source: NodeJS.ProcessEnv = process.env) => assertRetention(nodeSyncRetention, loadConfig(nodeSyncConfigSpec, source));
