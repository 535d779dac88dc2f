import { describe, expect, it } from '@jest/globals';
import { JsonLogger, type LeaderElector } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from '../../config.js';
import type { SchedulerScoringService } from '../../scheduler-scoring.service.js';
import type { ClusterCache } from '../outbound/cluster-cache.adapter.js';
import { SchedulerScoringLoop } from './scheduler-scoring.loop.js';

/** FakeService — records each loop cycle it is asked for; each one runs until the test ends it. */
class FakeService {
  readonly calls: { stillLeader: () => Promise<boolean>; end: () => void }[] = [];
  runLoopCycle(_mode: string, stillLeader: () => Promise<boolean>): Promise<undefined> {
    return new Promise((resolve) => this.calls.push({ stillLeader, end: () => resolve(undefined) }));
  }
}

function aLoop() {
  const leader = { isLeader: true, serverSaysLeader: true };
  const elector = { get isLeader() { return leader.isLeader; }, stillLeader: async () => leader.serverSaysLeader } as unknown as LeaderElector;
  const cluster = { synced: true } as unknown as ClusterCache;
  const svc = new FakeService();
  const config = { OPTIMIZE_MODE: 'plan', SCAN_INTERVAL_SECONDS: 1 } as SchedulerScoringConfig;
  const loop = new SchedulerScoringLoop(config, new JsonLogger('scheduler-scoring', 'error', () => undefined), cluster, elector, svc as unknown as SchedulerScoringService);
  return { loop, svc, leader };
}

describe('SchedulerScoringLoop', () => {
  it('makes one more cycle of the ticks that come while a cycle runs, never more', async () => {
    const { loop, svc } = aLoop();
    const first = loop.cycle();
    const second = loop.cycle();
    const third = loop.cycle();
    expect(svc.calls).toHaveLength(1);
    svc.calls[0]!.end();
    await new Promise((r) => setImmediate(r));
    expect(svc.calls).toHaveLength(2);
    svc.calls[1]!.end();
    await Promise.all([first, second, third]);
    expect(svc.calls).toHaveLength(2);
    const next = loop.cycle();
    expect(svc.calls).toHaveLength(3);
    svc.calls[2]!.end();
    await next;
  });

  it.each([
    ['still leader on the server: the cycle runs', true, true],
    ['leadership lost by the time the cycle starts: it does not run', false, false],
  ])('%s', async (_, serverSaysLeader, runs) => {
    const { loop, svc, leader } = aLoop();
    const pass = loop.cycle();
    leader.serverSaysLeader = serverSaysLeader;
    expect(await svc.calls[0]!.stillLeader()).toBe(runs);
    svc.calls[0]!.end();
    await pass;
  });
});
