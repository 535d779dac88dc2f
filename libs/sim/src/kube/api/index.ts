// The simulated API server's semantics, in layers: state.ts (store, timers, watches) → reads.ts (get, list,
// watch) → writes.ts (create, update, patch, apply, delete) → evictions.ts (eviction, disruption budgets).
import { ApiEvictions } from './evictions.js';

export type { Matcher } from '../selectors.js';
export { CONTROLLER_MANAGER, NODE_UNSCHEDULABLE_TAINT, k8sTime } from './types.js';
export type { KubeApiOptions, ListOptions, ListResult, PatchType, SimTimers, WatchOptions, WatchSink, WriteContext } from './types.js';

/**
 * KubeApi — the API server's semantics over the Store: validation, optimistic concurrency, managed
 * fields, the node lifecycle controller's unschedulable taint, the disruption controller's PDB status,
 * graceful pod deletion and the eviction subresource. The HTTP layer only parses and serializes.
 */
export class KubeApi extends ApiEvictions {}
