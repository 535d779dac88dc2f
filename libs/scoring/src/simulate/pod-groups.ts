// Pod groups in their working form, and their demand as the resource LP sees it.
import { avoidsSpotByDefault } from '../classify.js';
import type { WorkloadClass } from '../types.js';
import { DIMS, type Group, type SimulateConstraints, type SimulatePodGroup } from './types.js';
import { vec } from './vectors.js';

export function toGroups(pods: readonly SimulatePodGroup[], constraints: SimulateConstraints | undefined): Group[] {
  return pods.map((p, i) => {
    const cls: WorkloadClass = p.class ?? (p.requests.gpu > 0 ? 'gpu' : 'stateless');
    const averse = constraints?.spotAverseClasses ? constraints.spotAverseClasses.includes(cls) : avoidsSpotByDefault(cls);
    return { name: p.name ?? `group-${i}`, req: vec(p.requests), averse, src: p, remaining: Math.max(0, Math.floor(p.count)) };
  });
}

/**
 * Demand as the lower bound sees it: [averse cpu, mem, gpu, pods, all cpu, mem, gpu, pods] — pods that must
 * avoid Spot, and every pod.
 */
export function demandOf(groups: readonly Group[]): number[] {
  const d = new Array<number>(2 * DIMS).fill(0);
  for (const g of groups) {
    for (let k = 0; k < DIMS; k++) {
      const amount = g.remaining * g.req[k]!;
      if (g.averse) d[k]! += amount;
      d[DIMS + k]! += amount;
    }
  }
  return d;
}
