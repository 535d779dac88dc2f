import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeClock, JsonLogger } from '@nodes-manager/platform';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { KarpenterKube } from '../src/adapters/outbound/karpenter-kube.adapter.js';

describe('KarpenterKube discovery against the simulator', () => {
  let sim: KubeSim;
  const clock = new FakeClock('2026-03-11T10:00:00Z');
  const lines: string[] = [];
  let kube: KarpenterKube;
  beforeAll(async () => {
    sim = await startKubeSim({ karpenter: false });
    kube = new KarpenterKube(sim.kubeConfig(), clock, 30_000, new JsonLogger('karpenter-gateway', 'info', (l) => lines.push(l)));
  });
  afterAll(async () => {
    await sim.stop();
  });
  const requests = () => sim.stats().requests;

  it('asks the API server once for concurrent callers, then answers from the cache until the TTL passes', async () => {
    const before = requests();
    expect(await Promise.all(Array.from({ length: 10 }, () => kube.installed()))).toEqual(Array(10).fill(false));
    expect(requests() - before).toBe(1);

    sim.scenario.installKarpenter();
    clock.advance(29_000);
    expect(await kube.installed()).toBe(false); // still cached
    expect(requests() - before).toBe(1);
    clock.advance(1_000);
    expect(await kube.installed()).toBe(true);
    expect(requests() - before).toBe(2);
    expect(await kube.installed({ fresh: true })).toBe(true);
    expect(requests() - before).toBe(3);
  });

  it('logs one line per change of the detected state', () => {
    const msgs = lines.map((l) => JSON.parse(l) as { level: string; msg: string }).map((l) => `${l.level}: ${l.msg.split(':')[0]}`);
    expect(msgs).toEqual(['warn: Karpenter is not installed', 'info: Karpenter detected']);
  });

  it('does not cache a failed discovery, and never takes it for absence', async () => {
    clock.advance(60_000);
    sim.faults.set({ rate500: 1 });
    await expect(kube.installed()).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    sim.faults.clear();
    expect(await kube.installed()).toBe(true);
  });
});
