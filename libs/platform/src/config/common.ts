import type { ClusterIdentity } from '@nodes-manager/contracts';
import { z } from 'zod';
import { env, type EnvShape } from './config.js';

/**
 * The variables every service shares (README configuration table). `SCAN_INTERVAL_SECONDS` and
 * `AUTH_JWT_ACCESS_SECRET` are required with no default, as in the original service.
 */
export const commonShape = {
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  /** The most database connections the process opens at once (its pool), beside one per leader lock it holds. */
  DATABASE_POOL_SIZE: env.number({ dflt: 10, min: 1, max: 100, int: true }),
  RABBITMQ_URL: env.optionalString(),
  // HS256 needs a key of at least 256 bits (RFC 7518 §3.2): 32 characters.
  AUTH_JWT_ACCESS_SECRET: env.string().pipe(z.string().min(32, 'must be at least 32 characters (an HS256 key of 256 bits)')),
  SCAN_INTERVAL_SECONDS: env.number({ min: 1, max: 86400 }),
  LOG_LEVEL: env.oneOf(['debug', 'info', 'warn', 'error'], 'info'),
  COMMAND_TIMEOUT_MS: env.number({ dflt: 10000, min: 100, max: 300000, int: true }),
  /** A LIST page or the opening of a watch is abandoned (and retried) after this long (docs/kubernetes.md). */
  KUBE_REQUEST_TIMEOUT_SECONDS: env.number({ dflt: 60, min: 1, max: 600 }),
  /** Readiness turns false when the Kubernetes API could not be listed or watched for this long. */
  KUBE_API_STALE_SECONDS: env.number({ dflt: 60, min: 1, max: 3600 }),
  /** Informers list by a streaming WatchList (`sendInitialEvents`), falling back to paged LIST on servers without it. */
  KUBE_WATCH_LIST: env.bool(true),
  /**
   * The cluster this deployment runs beside (docs/fleet.md#cluster-identity): a name for people (a DNS label) and a
   * stable id (the EKS cluster ARN, or any unique string; defaults to the name). Stamped on every event as the
   * CloudEvents extensions `clustername` and `clusterid`, and given in the API's answers that a hub pools.
   */
  CLUSTER_NAME: env
    .string()
    .default('local')
    .pipe(z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS label: lowercase letters, digits and "-", at most 63 characters')),
  CLUSTER_ID: env.optionalString().pipe(
    z
      .string()
      .max(256, 'must be at most 256 characters')
      .regex(/^[A-Za-z0-9][A-Za-z0-9:/._-]*$/, 'must be letters, digits and ":/._-" (an EKS cluster ARN fits)')
      .optional(),
  ),
} satisfies EnvShape;

/** clusterIdentity — the cluster's id and name from a validated config; the id defaults to the name. */
export function clusterIdentity(config: { CLUSTER_NAME?: string; CLUSTER_ID?: string | undefined }): ClusterIdentity {
  const name = config.CLUSTER_NAME ?? 'local';
  return { id: config.CLUSTER_ID ?? name, name };
}


export const COMMON_SECRETS = ['AUTH_JWT_ACCESS_SECRET'] as const;

/** Default health ports, distinct per service so all six run side by side on one machine. */
export const DEFAULT_HEALTH_PORTS = {
  'node-sync': 8121,
  uncordon: 8122,
  'scheduler-scoring': 8123,
  'karpenter-gateway': 8124,
  'spot-advisor': 8125,
} as const;
