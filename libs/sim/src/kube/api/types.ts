// The vocabulary of the simulated API server: write contexts, list/watch options, its options, the resources
// its controllers act on, and Kubernetes' time format.
import { byId } from '../resources.js';
import type { Entry } from '../store.js';

/** WriteContext — who writes and when: `manager` is the fieldManager (or the User-Agent prefix). */
export interface WriteContext {
  manager: string;
  now: Date;
  dryRun?: boolean;
}

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  resourceVersion: number;
  items: Entry[];
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface WatchSink {
  /** Writes one newline-delimited watch event; `object` is JSON text. */
  send(type: string, object: string): void;
  end(): void;
}

export const NODE_UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';
/** The node lifecycle controller's field manager (its User-Agent prefix). */
export const CONTROLLER_MANAGER = 'kube-controller-manager';

export const PODS = byId('/pods');
export const NODES = byId('/nodes');
export const PDBS = byId('policy/poddisruptionbudgets');
export const NAMESPACES = byId('/namespaces');

/** k8sTime — RFC 3339 with seconds precision, as metav1.Time serializes. */
export const k8sTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** SimTimers — a clock's timers (a FakeClock's, in tests that step time). */
export interface SimTimers {
  setTimer(ms: number, fn: () => void): { cancel(): void };
}

export interface KubeApiOptions {
  clock: () => Date;
  /** Where the simulator's own delays (a terminating pod's) are timed; real timers when absent. */
  timers?: SimTimers;
  podTerminationMs: number;
  bookmarkIntervalMs: number;
  karpenter: boolean;
  historySize: number;
}
