import { describe, expect, it } from '@jest/globals';
import { UncordonReason, type UncordonVerdict } from '@nodes-manager/contracts';
import { decideRelief, holdForPressure, nextHighSamples, psiFromSummary, type PodMemory } from './decide-pressure.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const MiB = 2 ** 20;
const psi = (full10: number) => ({ some: { avg10: full10 + 5, avg60: full10 }, full: { avg10: full10, avg60: full10 / 2 } });
const aPod = (name: string, o: Partial<PodMemory> = {}): PodMemory => ({
  namespace: 'shop',
  name,
  qosClass: 'Burstable',
  daemonSet: false,
  mirror: false,
  workingSetBytes: 600 * MiB,
  requestBytes: 500 * MiB,
  ...o,
});
const relieve = (pods: PodMemory[], o: Partial<Parameters<typeof decideRelief>[0]> = {}) =>
  decideRelief({ mode: 'relieve', highSamples: 3, sustainSamples: 3, lastReliefAt: null, now: NOW, intervalMs: 30_000, pods, ...o });

describe('psiFromSummary', () => {
  it('reads node PSI for cpu, memory and io, and pod working sets', () => {
    const r = psiFromSummary({
      node: { cpu: { psi: { some: { avg10: 1, avg60: 2, avg300: 3 }, full: { avg10: 0, avg60: 0 } } }, memory: { psi: { some: { avg10: 40, avg60: 30 }, full: { avg10: 35, avg60: 20 } } } },
      pods: [{ podRef: { namespace: 'shop', name: 'web-1' }, memory: { workingSetBytes: 123 } }],
    });
    expect(r.cpu).toEqual({ some: { avg10: 1, avg60: 2 }, full: { avg10: 0, avg60: 0 } });
    expect(r.memory?.full.avg10).toBe(35);
    expect(r.io).toBeNull();
    expect(r.podMemory.get('shop/web-1')).toBe(123);
  });

  it('reports unknown (null) where the kubelet has no PSI', () => {
    const r = psiFromSummary({ node: { cpu: { usageNanoCores: 5 }, memory: { workingSetBytes: 5 } }, pods: [] });
    expect([r.cpu, r.memory, r.io]).toEqual([null, null, null]);
  });

  it('survives a garbage answer', () => {
    expect(psiFromSummary('nonsense').memory).toBeNull();
  });
});

describe('nextHighSamples', () => {
  it.each([
    ['counts a reading above the threshold', 2, psi(31), 3],
    ['resets on a reading at the threshold', 2, psi(30), 0],
    ['resets when PSI is unknown', 2, null, 0],
  ])('%s', (_t, prev, mem, next) => expect(nextHighSamples(prev, mem, 30)).toBe(next));
});

describe('decideRelief', () => {
  it.each<[string, PodMemory[], Partial<Parameters<typeof decideRelief>[0]>, string]>([
    ['evicts the BestEffort pod before a Burstable one using more', [aPod('burst', { workingSetBytes: 2000 * MiB }), aPod('be', { qosClass: 'BestEffort', requestBytes: 0, workingSetBytes: 300 * MiB })], {}, 'be'],
    ['among Burstable pods evicts the one most above its request', [aPod('a', { workingSetBytes: 700 * MiB }), aPod('b', { workingSetBytes: 900 * MiB })], {}, 'b'],
    ['never evicts a Guaranteed pod', [aPod('g', { qosClass: 'Guaranteed', workingSetBytes: 4000 * MiB })], {}, 'none:no_candidate'],
    ['never evicts a DaemonSet pod', [aPod('ds', { daemonSet: true, qosClass: 'BestEffort', requestBytes: 0 })], {}, 'none:no_candidate'],
    ['never evicts a mirror pod', [aPod('static', { mirror: true })], {}, 'none:no_candidate'],
    ['never evicts a pod within its request', [aPod('fits', { workingSetBytes: 400 * MiB })], {}, 'none:no_candidate'],
    ['does nothing on a node that only watches', [aPod('a')], { mode: 'watch' }, 'none:NOT_OPTED_IN'],
    ['waits for the configured number of high samples', [aPod('a')], { highSamples: 2 }, 'none:NOT_SUSTAINED'],
    ['relieves at most once per interval', [aPod('a')], { lastReliefAt: new Date(NOW.getTime() - 10_000) }, 'none:RATE_LIMITED'],
    ['relieves again once the interval has passed', [aPod('a')], { lastReliefAt: new Date(NOW.getTime() - 30_000) }, 'a'],
  ])('%s', (_t, pods, o, expected) => {
    const d = relieve(pods, o);
    expect(d.action === 'evict' ? d.pod.name : `none:${d.reason}`).toBe(expected);
  });
});

describe('holdForPressure', () => {
  const verdict = (decision: UncordonVerdict['decision']): UncordonVerdict => ({ node: 'n1', decision, reason: decision === 'uncordon' ? UncordonReason.UNCORDON : UncordonReason.WAITING_GRACE_PERIOD, evidence: {}, evaluatedAt: NOW.toISOString() });
  it.each<[string, UncordonVerdict, ReturnType<typeof psi> | null, string]>([
    ['holds an uncordon back while memory pressure is high', verdict('uncordon'), psi(45), 'wait:MEMORY_PRESSURE'],
    ['lets an uncordon through at the threshold', verdict('uncordon'), psi(30), 'uncordon:UNCORDON'],
    ['lets an uncordon through when PSI is unknown', verdict('uncordon'), null, 'uncordon:UNCORDON'],
    ['leaves other verdicts alone', verdict('wait'), psi(90), 'wait:WAITING_GRACE_PERIOD'],
  ])('%s', (_t, v, mem, expected) => {
    const h = holdForPressure(v, mem, 30, 30_000);
    expect(`${h.decision}:${h.reason}`).toBe(expected);
    if (h.reason === UncordonReason.MEMORY_PRESSURE) expect(h).toMatchObject({ requeueAfterMs: 30_000, evidence: { memoryFullAvg10: 45 } });
  });
});
