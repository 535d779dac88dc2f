import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { Commands } from '@nodes-manager/contracts';
import { FakeClock, JsonLogger } from '@nodes-manager/platform';
import { checkReplies } from '@nodes-manager/platform/testing';
import { NodePoolAccess } from '../src/nodepool-access.js';
import { NodePoolQueriesService } from '../src/nodepool-queries.service.js';
import type { KarpenterKube } from '../src/adapters/outbound/karpenter-kube.adapter.js';
import type { NodePoolChangesRepository } from '../src/adapters/outbound/nodepool-changes.repository.js';
import type { NodeClaim, NodePool } from '../src/domain/nodepool.types.js';

/**
 * karpenter-gateway's NodePool queries, their replies built by the service from generated NodePools and NodeClaims as
 * the API server may hold them — a status or not, conditions of any kind, limits as numbers or quantities, budgets with
 * and without schedules and reasons, claims without a node yet or being deleted — checked against the reply schemas.
 */
const T0 = '2026-03-01T00:00:00Z';
const condition = fc.record({ type: fc.constantFrom('Ready', 'ValidationSucceeded', 'NodeClassReady', 'Launched', 'Initialized'), status: fc.constantFrom('True', 'False', 'Unknown') });

const poolArb = (name: string): fc.Arbitrary<NodePool> =>
  fc
    .record({
      weight: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
      limits: fc.option(fc.dictionary(fc.constantFrom('cpu', 'memory', 'nvidia.com/gpu'), fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constantFrom('100', '1000Gi', '500m'))), { nil: undefined }),
      policy: fc.option(fc.constantFrom('WhenEmpty', 'WhenEmptyOrUnderutilized'), { nil: undefined }),
      after: fc.option(fc.constantFrom('30s', '5m', 'Never'), { nil: undefined }),
      budgets: fc.option(
        fc.array(fc.record({ nodes: fc.constantFrom('10%', '0', '3'), schedule: fc.option(fc.constant('0 9 * * mon-fri'), { nil: undefined }), duration: fc.option(fc.constant('8h'), { nil: undefined }), reasons: fc.option(fc.subarray(['Underutilized', 'Empty', 'Drifted'] as ('Underutilized' | 'Empty' | 'Drifted')[]), { nil: undefined }) }), { maxLength: 3 }),
        { nil: undefined },
      ),
      status: fc.option(fc.record({ resources: fc.option(fc.dictionary(fc.constantFrom('cpu', 'memory', 'nodes', 'pods'), fc.constantFrom('4', '16Gi', '0')), { nil: undefined }), conditions: fc.option(fc.array(condition, { maxLength: 3 }), { nil: undefined }) }), { nil: undefined }),
      created: fc.boolean(),
    })
    .map((o) => {
      const strip = <T extends object>(x: T): T => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)) as T;
      return {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: strip({ name, uid: `uid-${name}`, resourceVersion: '7', creationTimestamp: o.created ? T0 : undefined }),
        spec: strip({
          template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } },
          disruption: o.policy || o.after || o.budgets ? strip({ consolidationPolicy: o.policy, consolidateAfter: o.after, budgets: o.budgets?.map((b) => strip(b)) }) : undefined,
          limits: o.limits,
          weight: o.weight,
        }),
        ...(o.status ? { status: strip(o.status) } : {}),
      } as NodePool;
    });

const claimArb = (pool: string, i: number): fc.Arbitrary<NodeClaim> =>
  fc.record({ node: fc.boolean(), deleting: fc.boolean(), conditions: fc.option(fc.array(condition, { maxLength: 4 }), { nil: undefined }), annotated: fc.boolean() }).map((o) => ({
    metadata: {
      name: `${pool}-claim-${i}`,
      uid: `claim-uid-${i}`,
      creationTimestamp: T0,
      labels: { 'karpenter.sh/nodepool': pool, 'karpenter.sh/capacity-type': i % 2 ? 'spot' : 'on-demand' },
      ...(o.deleting ? { deletionTimestamp: T0 } : {}),
      ...(o.annotated ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
    },
    status: { ...(o.node ? { nodeName: `node-${i}`, providerID: `aws:///us-east-1a/i-0${i}` } : {}), ...(o.conditions ? { conditions: o.conditions } : {}) },
  }));

interface Cluster {
  readonly installed: boolean;
  readonly pools: NodePool[];
  readonly claims: NodeClaim[];
}
const clusterArb: fc.Arbitrary<Cluster> = fc.record({
  installed: fc.boolean(),
  pools: fc.integer({ min: 0, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => poolArb(['general', 'gpu', 'batch'][i]!)))),
  claims: fc.integer({ min: 0, max: 4 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => claimArb('general', i)))),
});

function queriesOn(c: Cluster): NodePoolQueriesService {
  const kube = {
    installed: async () => c.installed,
    listNodePools: async () => c.pools,
    getNodePool: async (name: string) => c.pools.find((p) => p.metadata.name === name),
    listNodeClaims: async (pool: string) => c.claims.filter((x) => x.metadata.labels?.['karpenter.sh/nodepool'] === pool),
  } as unknown as KarpenterKube;
  const access = new NodePoolAccess(kube, new FakeClock(T0), new JsonLogger('karpenter-gateway', 'error', () => undefined), {} as NodePoolChangesRepository);
  return new NodePoolQueriesService(kube, access);
}

describe('karpenter-gateway replies, over generated NodePools', () => {
  it(`${Commands.nodepoolsList}: every NodePool, summarised`, async () => {
    await checkReplies(Commands.nodepoolsList, clusterArb, (c) => queriesOn(c).list());
  });

  it(`${Commands.nodepoolGet}: one NodePool in detail, with its claims`, async () => {
    await checkReplies(Commands.nodepoolGet, clusterArb.filter((c) => c.installed && c.pools.length > 0), (c) => queriesOn(c).get(c.pools[0]!.metadata.name));
  });

  it(`${Commands.nodeclaimsList}: a NodePool's claims`, async () => {
    // Karpenter absent (an empty list), or the pool there (a missing one is NOT_FOUND, an error, not a reply).
    await checkReplies(Commands.nodeclaimsList, clusterArb.filter((c) => !c.installed || c.pools.length > 0), (c) => queriesOn(c).nodeclaims('general'));
  });
});
