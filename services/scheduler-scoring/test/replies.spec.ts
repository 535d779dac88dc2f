import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { Commands, NTH_REBALANCE_TAINT_KEY } from '@nodes-manager/contracts';
import { FakeClock, type Clock } from '@nodes-manager/platform';
import { checkReplies } from '@nodes-manager/platform/testing';
import { aNode, aPod, GiB, resources } from '../../../libs/scoring/src/testing/builders.js';
import type { PdbInfo, ScoringNode, ScoringPod } from '@nodes-manager/scoring';
import { ClusterMarketService } from '../src/cluster-market.service.js';
import { SchedulingQueriesService } from '../src/scheduling-queries.service.js';
import { bundledPrices } from '../src/adapters/outbound/price-source.adapter.js';
import { withRequested, type ClusterSnapshot, type PriceSnapshot } from '../src/domain/cluster.js';
import type { ClusterCache } from '../src/adapters/outbound/cluster-cache.adapter.js';
import type { SchedulingRepository } from '../src/adapters/outbound/scheduling.repository.js';
import type { SchedulerScoringConfig } from '../src/config.js';

/**
 * Every scheduler-scoring query's reply, built by the service from generated clusters — nodes of any zone, capacity
 * type, readiness and cordon, tainted or not (the termination handler's rebalance taint among them); pods bound to
 * those nodes, to a node the cache does not have, pending or finished, with and without owners and budgets; prices
 * from spot-advisor for some pools only, or the bundled table — checked against the command's reply schema.
 */
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'] as const;
const TYPES = ['m5.large', 'm5.xlarge', 'c5.2xlarge', 'g5.xlarge'] as const;

const nodeArb = (i: number): fc.Arbitrary<ScoringNode> =>
  fc
    .record({
      zone: fc.constantFrom(...ZONES),
      instanceType: fc.constantFrom(...TYPES),
      capacityType: fc.constantFrom('spot' as const, 'on-demand' as const),
      ready: fc.boolean(),
      unschedulable: fc.boolean(),
      tainted: fc.boolean(),
      cpu: fc.constantFrom(2000, 4000, 8000),
      gpu: fc.constantFrom(0, 0, 1),
      nodePool: fc.option(fc.constantFrom('general', 'gpu'), { nil: undefined }),
      doNotDisrupt: fc.boolean(),
    })
    .map((o) =>
      aNode({
        name: `node-${i}`,
        zone: o.zone,
        instanceType: o.instanceType,
        capacityType: o.capacityType,
        ready: o.ready,
        unschedulable: o.unschedulable,
        taints: o.tainted ? [{ key: NTH_REBALANCE_TAINT_KEY, value: 'event-1', effect: 'NoSchedule' }] : [],
        allocatable: resources({ cpuMilli: o.cpu, memoryBytes: (o.cpu / 250) * GiB, gpu: o.gpu }),
        ...(o.nodePool ? { nodePool: o.nodePool } : {}),
        ...(o.doNotDisrupt ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
      }),
    );

const podArb = (i: number, nodes: number): fc.Arbitrary<ScoringPod> =>
  fc
    .record({
      node: fc.option(fc.integer({ min: 0, max: nodes }), { nil: undefined }),
      app: fc.constantFrom('web', 'api', 'db', 'job'),
      cpu: fc.constantFrom(50, 250, 1000, 3000),
      gpu: fc.constantFrom(0, 0, 0, 1),
      owner: fc.constantFrom('ReplicaSet', 'StatefulSet', 'Job', 'DaemonSet', undefined),
      phase: fc.constantFrom('Running', 'Running', 'Pending', 'Succeeded', 'Failed'),
      tolerates: fc.boolean(),
    })
    .map((o) =>
      aPod({
        uid: `uid-${i}`,
        name: `${o.app}-${i}`,
        // One node index past the fleet: a pod whose node the cache does not have.
        ...(o.node === undefined ? {} : { nodeName: `node-${o.node}` }),
        labels: { app: o.app },
        workload: o.app,
        requests: { cpuMilli: o.cpu, memoryBytes: o.cpu * 1024 * 1024, gpu: o.gpu },
        ...(o.owner ? { ownerKind: o.owner, ownerName: `${o.app}-owner` } : { ownerKind: undefined, ownerName: undefined }),
        phase: o.phase as ScoringPod['phase'],
        tolerations: o.tolerates ? [{ key: NTH_REBALANCE_TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' }] : [],
      }),
    );

const pdbArb: fc.Arbitrary<PdbInfo> = fc.record({ app: fc.constantFrom('web', 'api', 'db'), allowed: fc.integer({ min: 0, max: 2 }) }).map((o) => ({ name: `${o.app}-pdb`, namespace: 'default', selector: { app: o.app }, disruptionsAllowed: o.allowed }));

interface State {
  readonly snapshot: ClusterSnapshot;
  readonly prices: PriceSnapshot;
}

const stateArb: fc.Arbitrary<State> = fc.integer({ min: 0, max: 6 }).chain((n) =>
  fc
    .record({
      nodes: fc.tuple(...Array.from({ length: n }, (_, i) => nodeArb(i))),
      pods: fc.integer({ min: 0, max: 12 }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, i) => podArb(i, n)))),
      pdbs: fc.uniqueArray(pdbArb, { selector: (p) => p.name, maxLength: 3 }),
      fromAdvisor: fc.boolean(),
      priced: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ nodes, pods, pdbs, fromAdvisor, priced }) => {
      const table = bundledPrices([...ZONES]);
      // Spot prices for some pools only: the others are as spot-advisor leaves them, unknown.
      if (fromAdvisor) [...table.keys()].forEach((k, i) => i / table.size < priced && table.set(k, { ...table.get(k), spotUsdPerHour: 0.03 + i / 1000, interruptionBucket: '5-10%' }));
      const prices: PriceSnapshot = fromAdvisor ? { table, source: 'spot-advisor' } : { table, source: 'bundled-catalog', detail: 'SERVICE_UNAVAILABLE: spot-advisor is not running' };
      return { snapshot: { nodes: withRequested(nodes, pods), pods, pdbs }, prices };
    }),
);

const CONFIG = { OPTIMIZE_UTILIZATION_THRESHOLD: 0.5, OPTIMIZE_MODE: 'plan', SCAN_INTERVAL_SECONDS: 30, CATALOG_CACHE_SECONDS: 300 } as SchedulerScoringConfig;
const META = { actor: 'alice', correlationId: 'c-1' };

/** queriesOn — the service's queries over one generated state: the cache, prices and catalog answer with it. */
function queriesOn(state: State, clock: Clock = new FakeClock('2026-03-01T00:00:00Z')): SchedulingQueriesService {
  const cluster = { synced: true, snapshot: () => state.snapshot } as unknown as ClusterCache;
  const market = new ClusterMarketService(CONFIG, cluster, { prices: async () => state.prices }, { instanceTypes: async () => ({ ok: false, detail: 'SERVICE_UNAVAILABLE: spot-advisor is not running' }) }, clock);
  const repo = { latestPlan: async () => undefined } as unknown as SchedulingRepository;
  return new SchedulingQueriesService(CONFIG, repo, clock, market);
}

describe('scheduler-scoring replies, over generated clusters', () => {
  it(`${Commands.placementList}: every page of pods, whatever their nodes now say`, async () => {
    await checkReplies(Commands.placementList, fc.tuple(stateArb, fc.integer({ min: 1, max: 8 })), ([state, limit]) => queriesOn(state).placement({ limit }, META));
  });

  it(`${Commands.optimizePlan}: the consolidation plan, of the cluster or of one NodePool`, async () => {
    await checkReplies(Commands.optimizePlan, fc.tuple(stateArb, fc.option(fc.constantFrom('general', 'gpu'), { nil: undefined })), ([state, nodePool]) =>
      queriesOn(state).plan(nodePool ? { nodePool } : {}, META),
    );
  });

  it(`${Commands.simulate}: pod groups placed on the fleet, the rest on new nodes`, async () => {
    const groups = fc.array(
      fc.record({ name: fc.constantFrom('a', 'b', 'c'), count: fc.integer({ min: 1, max: 20 }), cpu: fc.constantFrom('100m', '1', '4'), memory: fc.constantFrom('128Mi', '2Gi', '16Gi') }),
      { minLength: 1, maxLength: 3 },
    );
    await checkReplies(Commands.simulate, fc.tuple(stateArb, groups), ([state, pods]) => queriesOn(state).simulate({ pods: pods.map((p, i) => ({ ...p, name: `${p.name}-${i}` })) }, META), { numRuns: 50 });
  });
});
