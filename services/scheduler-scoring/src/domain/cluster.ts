import {
  classifyWorkload,
  type PdbInfo,
  type PriceTable,
  type ScoringNode,
  type ScoringPod,
  type SimulatePodGroup,
} from '@nodes-manager/scoring';

/** ClusterSnapshot — one consistent view of the cached cluster, nodes' `requested` summed from their pods. */
export interface ClusterSnapshot {
  readonly nodes: readonly ScoringNode[];
  readonly pods: readonly ScoringPod[];
  readonly pdbs: readonly PdbInfo[];
}

/** Where prices came from: spot-advisor's market, or the bundled On-Demand catalog (Spot unknown). */
export type PriceSource = 'spot-advisor' | 'bundled-catalog';

export interface PriceSnapshot {
  readonly table: PriceTable;
  readonly source: PriceSource;
  /** Why the fallback was used (spot-advisor's error), when it was. */
  readonly detail?: string;
}

/** terminal — a finished pod holds no resources and is never moved. */
export const terminal = (p: ScoringPod): boolean => p.phase === 'Succeeded' || p.phase === 'Failed';

/**
 * withRequested — each node's `requested` = Σ effective requests of the non-terminal pods bound to it (what
 * kube-scheduler's NodeResourcesFit counts), pod slots included.
 */
export function withRequested(nodes: readonly ScoringNode[], pods: readonly ScoringPod[]): ScoringNode[] {
  const sums = new Map<string, { cpuMilli: number; memoryBytes: number; gpu: number; pods: number }>();
  for (const n of nodes) sums.set(n.name, { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 });
  for (const p of pods) {
    if (p.nodeName === undefined || terminal(p)) continue;
    const s = sums.get(p.nodeName);
    if (!s) continue;
    s.cpuMilli += p.requests.cpuMilli;
    s.memoryBytes += p.requests.memoryBytes;
    s.gpu += p.requests.gpu;
    s.pods += p.requests.pods ?? 1;
  }
  return nodes.map((n) => ({ ...n, requested: sums.get(n.name)! }));
}

/**
 * withVolumeZones — the conservative VolumeZone rule without watching PersistentVolumes: a pod with a PVC that
 * is bound to a node keeps to that node's zone (`pvcZones = [zone]`), since the zonal volumes it mounts (EBS)
 * attach only there. A pending pod with a PVC has no zone here (unknown, not guessed); a pod whose node is not
 * known, or is in zone `unknown`, is left as it is. See docs/scoring.md.
 */
export function withVolumeZones(pods: readonly ScoringPod[], nodes: readonly ScoringNode[]): ScoringPod[] {
  const zones = new Map<string, string>();
  for (const n of nodes) if (n.zone !== 'unknown') zones.set(n.name, n.zone);
  return pods.map((p) => {
    if (!p.hasPvc || p.nodeName === undefined || p.pvcZones !== undefined) return p;
    const zone = zones.get(p.nodeName);
    return zone === undefined ? p : { ...p, pvcZones: [zone] };
  });
}

/** pendingUnscheduled — Pending pods no node was chosen for: what a scale-up must make room for. */
export const pendingUnscheduled = (p: ScoringPod): boolean => p.phase === 'Pending' && p.nodeName === undefined;

/**
 * pendingGroups — the pending, unscheduled pods as simulate's groups: identical pods of one workload (same
 * requests, class, selector and tolerations) become one group named `namespace/workload`.
 */
export function pendingGroups(pods: readonly ScoringPod[]): SimulatePodGroup[] {
  const groups = new Map<string, { name: string; pod: ScoringPod; count: number }>();
  for (const p of pods) {
    if (!pendingUnscheduled(p)) continue;
    const r = p.requests;
    const key = JSON.stringify([p.namespace, p.workload ?? p.name, r.cpuMilli, r.memoryBytes, r.gpu, classifyWorkload(p), p.nodeSelector ?? {}, p.tolerations]);
    const g = groups.get(key);
    if (g) g.count += 1;
    else groups.set(key, { name: `${p.namespace}/${p.workload ?? p.name}`, pod: p, count: 1 });
  }
  // Two groups of one workload that differ in requests keep distinct names.
  const seen = new Map<string, number>();
  return [...groups.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ name, pod, count }) => {
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      return {
        name: n === 1 ? name : `${name}#${n}`,
        requests: { cpuMilli: pod.requests.cpuMilli, memoryBytes: pod.requests.memoryBytes, gpu: pod.requests.gpu },
        count,
        class: classifyWorkload(pod),
        ...(pod.nodeSelector ? { nodeSelector: pod.nodeSelector } : {}),
        tolerations: pod.tolerations,
        ...(pod.pvcZones && pod.pvcZones.length === 1 ? { zone: pod.pvcZones[0]! } : {}),
      };
    });
}
