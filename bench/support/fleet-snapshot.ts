import type { V1Pod } from '@kubernetes/client-node';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import { Interner } from '@nodes-manager/platform';
import type { ConsolidationInput } from '@nodes-manager/scoring';
import { generateFleet } from '@nodes-manager/sim';
import { priceTable } from '../../libs/scoring/src/testing/prices.js';
import { computePdbCounts } from '../../libs/sim/src/kube/pdb.js';
import { withRequested, withVolumeZones, type CachedPod } from '../../services/scheduler-scoring/src/domain/cluster.js';
import {
  projectCachedPod, projectClaim, projectNode, projectPdb, projectVolume,
} from '../../services/scheduler-scoring/src/adapters/outbound/kube-projection.mapper.js';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
/** The price table of the generated fleet's instance types in its three zones. */
export const fleetPrices = priceTable(INSTANCE_TYPES, ZONES);

/**
 * fleetSnapshot — what scheduler-scoring's `InformerClusterCache.snapshot()` hands the consolidation plan for the
 * simulator's generated fleet (seed 42), projected batch by batch through the service's own projections.
 */
export function fleetSnapshot(nodes: number, podsPerNode: number): ConsolidationInput {
  const intern = new Interner();
  const pods: CachedPod[] = [];
  /** Per budget's (namespace, app): the pods' health, as the disruption controller counts it. */
  const health = new Map<string, { ready: boolean; deleting: boolean; terminal: boolean }[]>();
  const through = <T>(o: T): any => JSON.parse(JSON.stringify(o)); // eslint-disable-line @typescript-eslint/no-explicit-any
  const fleet = generateFleet({
    seed: 42,
    nodes,
    podsPerNode,
    podSink: (batch: V1Pod[]) => {
      for (const raw of through(batch)) {
        pods.push(projectCachedPod(raw, intern));
        const app = raw.metadata?.labels?.app;
        if (app === undefined) continue;
        const key = `${raw.metadata.namespace}/${app}`;
        let list = health.get(key);
        if (!list) health.set(key, (list = []));
        const phase = raw.status?.phase;
        list.push({ ready: phase === 'Running', deleting: false, terminal: phase === 'Succeeded' || phase === 'Failed' });
      }
    },
  });
  const claims = new Map<string, string | undefined>();
  for (const c of through(fleet.persistentVolumeClaims)) claims.set(`${c.metadata.namespace}/${c.metadata.name}`, projectClaim(c).volumeName);
  const volumes = new Map<string, string[]>();
  for (const v of through(fleet.persistentVolumes)) volumes.set(v.metadata.name, projectVolume(v));
  const pdbs = through(fleet.pdbs).map((b: any) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const selected = health.get(`${b.metadata.namespace}/${b.spec.selector.matchLabels.app}`) ?? [];
    return projectPdb({ ...b, status: computePdbCounts(b.spec, selected) });
  });
  const projected = withRequested(through(fleet.nodes).map((n: unknown) => projectNode(n, intern)), pods);
  return {
    nodes: projected,
    pods: withVolumeZones(pods, projected, { claimVolume: (k) => claims.get(k), volumeZones: (v) => volumes.get(v) }),
    pdbs,
    prices: fleetPrices,
    threshold: 0.5,
  };
}

