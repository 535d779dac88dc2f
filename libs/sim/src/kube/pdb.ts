import type { KubeObject } from './resources.js';

/** PodHealth — what the disruption controller needs to know about one pod a budget selects. */
export interface PodHealth {
  readonly ready: boolean;
  readonly deleting: boolean;
  readonly terminal: boolean;
}

export interface PdbStatusCounts {
  expectedPods: number;
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
}

/** scaled — an IntOrString against a total; percentages round up, as intstr.GetScaledValueFromIntOrPercent(…, true). */
export function scaled(v: number | string, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (m) return Math.ceil((Number(m[1]) * total) / 100);
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

/**
 * computePdbCounts — the disruption controller's arithmetic: expected = the selected non-terminal pods,
 * healthy = Ready and not being deleted; desired from minAvailable, or expected − maxUnavailable;
 * disruptionsAllowed = max(0, healthy − desired). Neither field set means minAvailable 1.
 */
export function computePdbCounts(spec: KubeObject, pods: readonly PodHealth[]): PdbStatusCounts {
  const live = pods.filter((p) => !p.terminal);
  const expectedPods = live.length;
  const currentHealthy = live.filter((p) => p.ready && !p.deleting).length;
  let desiredHealthy: number;
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
  } else {
    desiredHealthy = scaled(spec.minAvailable ?? 1, expectedPods);
  }
  return { expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
}
