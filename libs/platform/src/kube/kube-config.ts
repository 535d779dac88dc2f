import * as k8s from '@kubernetes/client-node';

/**
 * createKubeConfig — `KUBECONFIG` when set (a file, e.g. the simulator's generated one), else the in-cluster
 * service account. `userAgent` identifies the service to the API server (managedFields' manager fallback).
 */
export function createKubeConfig(kubeconfigPath: string | undefined): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (kubeconfigPath) kc.loadFromFile(kubeconfigPath);
  else kc.loadFromCluster();
  return kc;
}

/** FIELD_MANAGER — the field manager of every write nodes-manager makes to the cluster. */
export const FIELD_MANAGER = 'nodes-manager';

/** kubeErrorCode — the HTTP status of a client error (ApiException.code), or undefined for network errors. */
export function kubeErrorCode(err: unknown): number | undefined {
  const c = (err as { code?: unknown })?.code;
  return typeof c === 'number' ? c : undefined;
}

/** kubeErrorReason — `reason` of the Status body (`Conflict`, `NotFound`, `TooManyRequests`…), when there is one. */
export function kubeErrorReason(err: unknown): string | undefined {
  const body = (err as { body?: unknown })?.body;
  try {
    const parsed = typeof body === 'string' ? JSON.parse(body) : body;
    return typeof parsed?.reason === 'string' ? parsed.reason : undefined;
  } catch {
    return undefined;
  }
}
