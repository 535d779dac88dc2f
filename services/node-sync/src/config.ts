import { commonShape, COMMON_SECRETS, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig } from '@nodes-manager/platform';

/** node-sync's configuration (README table). */
export const nodeSyncConfigSpec = defineConfigSpec({
  service: 'node-sync',
  shape: {
    ...commonShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['node-sync']),
    KUBECONFIG: env.optionalString(),
    DELETED_POD_RETENTION_HOURS: env.number({ dflt: 24, min: 1, max: 24 * 365 }),
    SYNC_PAGE_SIZE: env.number({ dflt: 500, min: 10, max: 5000, int: true }),
    /** A burst of node/pod changes is written once, this long after the first change. */
    SYNC_DEBOUNCE_MS: env.number({ dflt: 500, min: 0, max: 60_000, int: true }),
  },
  secrets: [...COMMON_SECRETS],
});

export type NodeSyncConfig = ReturnType<typeof loadNodeSyncConfig>;
export const loadNodeSyncConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(nodeSyncConfigSpec, source);
