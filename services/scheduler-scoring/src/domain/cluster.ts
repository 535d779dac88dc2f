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

/** CachedPod — a pod as the cache keeps it: the scoring view plus the names of the claims it mounts (own namespace). */
export type CachedPod = ScoringPod & { readonly pvcClaims?: readonly string[] };

/**
 * VolumeIndex — what the PersistentVolumeClaim and PersistentVolume informers know: each claim's bound volume
 * (`namespace/name` → `spec.volumeName`, undefined while unbound) and each volume's zones (empty: not zonal).
 */
export interface VolumeIndex {
  readonly claimVolume: (key: string) => string | undefined;
  readonly volumeZones: (name: string) => readonly string[] | undefined;
}

/** NO_VOLUMES — no claim or volume known: every pod falls back to the rule of its node's zone. */
export const NO_VOLUMES: VolumeIndex = { claimVolume: () => undefined, volumeZones: () => undefined };

/**
 * withVolumeZones — each pod's `pvcZones` for the VolumeZone filter, from the PersistentVolumes its claims are
 * bound to: a pod must reach every volume, so it is confined to the zones all of them share.
 * - Each claim bound to a volume with zones (node affinity `In`, else the zone label) allows those zones.
 * - A claim that is unbound, or whose volume is unknown or has no zone, falls back to the conservative rule: a
 *   pod bound to a node (in a known zone) keeps to that node's zone; for a pending pod it says nothing.
 * - The zones every claim allows: one → `[it]`; none (volumes in different zones) → all of them, which no node
 *   passes; several (multi-zone volumes) → the node's zone if the pod runs in one of them, else no constraint,
 *   as `pvcZones` cannot say "any of".
 * Zones already set are kept; the claim names are dropped from the result. See docs/scoring.md.
 */
export function withVolumeZones(pods: readonly CachedPod[], nodes: readonly ScoringNode[], volumes: VolumeIndex = NO_VOLUMES): ScoringPod[] {
  const zones = new Map<string, string>();
  for (const n of nodes) if (n.zone !== 'unknown') zones.set(n.name, n.zone);
  return pods.map((p) => {
    const { pvcClaims, ...pod } = p;
    if (pod.pvcZones !== undefined) return pvcClaims === undefined ? p : pod;
    const nodeZone = pod.nodeName === undefined ? undefined : zones.get(pod.nodeName);
    const allowed = volumeZonesOf(p, nodeZone, volumes);
    return allowed === undefined ? (pvcClaims === undefined ? p : pod) : { ...pod, pvcZones: allowed };
  });
}

/** volumeZonesOf — the `pvcZones` of one pod (see withVolumeZones), or undefined for no constraint. */
function volumeZonesOf(p: CachedPod, nodeZone: string | undefined, volumes: VolumeIndex): string[] | undefined {
  // A pod whose claim names are not known (projected elsewhere) but that mounts a PVC: one unresolved claim.
  const claims: readonly (string | undefined)[] = p.pvcClaims ?? (p.hasPvc ? [undefined] : []);
  const sets: (readonly string[])[] = [];
  for (const claim of claims) {
    const volume = claim === undefined ? undefined : volumes.claimVolume(`${p.namespace}/${claim}`);
    const z = volume === undefined ? undefined : volumes.volumeZones(volume);
    if (z !== undefined && z.length > 0) sets.push(z);
    else if (nodeZone !== undefined) sets.push([nodeZone]);
  }
  if (sets.length === 0) return undefined;
  const shared = [...new Set(sets[0])].filter((z) => sets.every((s) => s.includes(z)));
  if (shared.length === 1) return shared;
  if (shared.length === 0) return [...new Set(sets.flat())].sort();
  return nodeZone !== undefined && shared.includes(nodeZone) ? [nodeZone] : undefined;
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
