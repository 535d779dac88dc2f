import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import type { SimulateInput, SimulatePodGroup } from '../simulate/index.js';
import type { WorkloadClass } from '../types.js';
import { aNode, GiB, resources } from './builders.js';
import { mulberry32, priceTable } from './prices.js';

/** Seeded workloads for the simulate quality measurements (simulate.quality.spec.ts, docs/scoring.md). */

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const CLASSES: WorkloadClass[] = ['stateless', 'stateless', 'stateless', 'batch', 'stateful', 'latency_sensitive'];

/**
 * realistic — a seeded workload drawn like a real cluster's (the fleet generator's distributions,
 * libs/sim/src/fleet/generate-fleet.ts): 8–20 workloads, replica counts heavy-tailed (most 1–10, some 10–60,
 * a few 100–300), requests mostly 50m–500m / 64Mi–768Mi (Deployments) or 250m–1 core / 1–2 GiB (StatefulSets),
 * about one workload in ten large (1–2 cores / 2–4 GiB); classes as in a cluster. No existing free capacity, so
 * only new nodes are compared.
 */
export function realistic(seed: number): SimulateInput {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const replicas = (): number => {
    const u = rnd();
    if (u < 0.65) return 1 + Math.floor(rnd() * 10);
    if (u < 0.93) return 10 + Math.floor(rnd() * 50);
    return 100 + Math.floor(rnd() * 200);
  };
  const pods: SimulatePodGroup[] = Array.from({ length: 8 + Math.floor(rnd() * 13) }, (_, i) => {
    const kind = rnd();
    let cpuMilli: number;
    let memMi: number;
    let cls: WorkloadClass;
    if (kind < 0.1) {
      cpuMilli = pick([1000, 1500, 2000]);
      memMi = pick([2048, 3072, 4096]);
      cls = pick(['stateless', 'batch'] as const);
    } else if (kind < 0.22) {
      cpuMilli = pick([250, 500, 1000]);
      memMi = pick([1024, 2048]);
      cls = 'stateful';
    } else {
      cpuMilli = pick([50, 100, 100, 150, 200, 250, 250, 300, 400, 500]);
      memMi = pick([64, 128, 128, 256, 256, 384, 512, 768]);
      cls = pick(['stateless', 'stateless', 'stateless', 'stateless', 'batch', 'latency_sensitive'] as const);
    }
    return { name: `w${i}`, requests: { cpuMilli, memoryBytes: memMi * 1024 * 1024, gpu: 0 }, count: replicas(), class: cls };
  });
  return { pods, nodes: [], catalog: INSTANCE_TYPES, prices: priceTable(INSTANCE_TYPES, ZONES, seed), constraints: { zones: ZONES } };
}

/** lumpy — adversarial, lumpy workloads: 2–8 groups of 5–300 pods, 100m–4 cores, 0.5–8 GiB per core, a few existing nodes. */
export function lumpy(seed: number): SimulateInput {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const pods: SimulatePodGroup[] = Array.from({ length: 2 + Math.floor(rnd() * 7) }, (_, i) => {
    const cpuMilli = 100 * (1 + Math.floor(rnd() * 40));
    const gibPerCore = pick([0.5, 1, 2, 4, 8]);
    return {
      name: `g${i}`,
      requests: { cpuMilli, memoryBytes: Math.round((cpuMilli / 1000) * gibPerCore * GiB), gpu: 0 },
      count: 5 + Math.floor(rnd() * 296),
      class: pick(CLASSES),
    };
  });
  const nodes = Array.from({ length: seed % 2 === 0 ? 0 : Math.floor(rnd() * 6) }, (_, i) =>
    aNode({
      name: `existing-${i}`,
      zone: pick(ZONES),
      capacityType: pick(['spot', 'on-demand'] as const),
      requested: resources({ cpuMilli: Math.floor(rnd() * 4000), memoryBytes: Math.floor(rnd() * 16) * GiB, pods: 10 }),
    }),
  );
  return { pods, nodes, catalog: INSTANCE_TYPES, prices: priceTable(INSTANCE_TYPES, ZONES, seed), constraints: { zones: ZONES } };
}
