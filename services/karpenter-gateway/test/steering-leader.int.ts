import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Commands, type CommandMeta, type SteeringStatus } from '@nodes-manager/contracts';
import { COMMAND_BUS, FakeClock, newMeta, type CommandBus, type LeaderElector } from '@nodes-manager/platform';
import { waitFor } from '@nodes-manager/platform/testing';
import type { LedgerRowLike, Offering, PoolPrice } from '@nodes-manager/steering';
import { marketOf, type SteeringSources } from '../src/steering/steering-sources.adapter.js';
import { SteeringController } from '../src/steering/steering.controller.js';
import { KARPENTER_LEADER } from '../src/tokens.js';
import { startHarness, type Harness } from './harness.js';

const HOUR = 3_600_000;
const MARKET = [
  { instanceType: 'm5.large', zone: 'us-east-1a', spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096 },
  { instanceType: 'c5.large', zone: 'us-east-1b', spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096 },
];

/** CountingSources — steering's reads of the other services, counted: only the replica that runs passes reads them. */
class CountingSources implements SteeringSources {
  reads = 0;
  async ledger(_from: Date, _meta: CommandMeta): Promise<LedgerRowLike[]> {
    this.reads += 1;
    return [];
  }
  async market(_meta: CommandMeta): Promise<{ prices: Map<string, PoolPrice>; offerings: Offering[] }> {
    return marketOf(MARKET);
  }
}

const ENV = { STEERING_MODE: 'plan', STEERING_INTERVAL_SECONDS: String(HOUR / 1000), SCAN_INTERVAL_SECONDS: '60' };

/**
 * Steering has one leader (docs/steering.md#the-loop): two karpenter-gateway instances on one database and one
 * Kubernetes simulator, one FakeClock. Exactly one runs the passes; both answer `steering.status` the same, from the
 * stored last pass (each asked over its own command bus, the reply checked against the typed schema).
 */
describe('steering with two karpenter-gateway replicas on one database', () => {
  const clock = new FakeClock('2026-05-04T00:00:00Z');
  const sources = [new CountingSources(), new CountingSources()];
  let replicas: Harness[] = [];

  beforeAll(async () => {
    const first = await startHarness({ karpenter: true, clock, steeringSources: sources[0]!, env: ENV });
    const second = await startHarness({ karpenter: true, clock, steeringSources: sources[1]!, env: ENV, shared: first });
    replicas = [first, second];
  }, 60_000);
  afterAll(async () => {
    for (const r of [...replicas].reverse()) await r.stop();
  });

  const leaderOf = (h: Harness) => h.app.get<LeaderElector>(KARPENTER_LEADER, { strict: false });
  const status = (h: Harness) => h.app.get<CommandBus>(COMMAND_BUS, { strict: false }).send(Commands.steeringStatus, {}, newMeta('alice'));
  const settled = async () => {
    for (const h of replicas) await h.app.get(SteeringController, { strict: false }).controller.settled();
  };

  it('exactly one replica runs the passes, and both answer the same status', async () => {
    // The elections run on the database: one of the two takes the lock.
    await waitFor(() => replicas.some((h) => leaderOf(h).isLeader) || undefined, 'a steering leader', 15_000);
    expect(replicas.filter((h) => leaderOf(h).isLeader)).toHaveLength(1);
    const leading = replicas.findIndex((h) => leaderOf(h).isLeader);
    await settled();
    for (let i = 0; i < 3; i++) {
      await clock.step(HOUR);
      await settled();
    }
    // The leader's pass on becoming leader and one per interval; the other replica never reads.
    expect(sources[leading]!.reads).toBe(4);
    expect(sources[1 - leading]!.reads).toBe(0);

    const answers = (await Promise.all(replicas.map(status))) as SteeringStatus[];
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toMatchObject({ mode: 'plan', state: 'decided', passedAt: '2026-05-04T03:00:00.000Z', decidedAt: '2026-05-04T03:00:00.000Z', recommendations: { instanceTypes: [], zones: [], pools: [] } });
  }, 90_000);
});
