import { describe, expect, it } from '@jest/globals';
import { FencingReason } from '@nodes-manager/contracts';
import { decideEc2Step, decideFencing, type FenceCandidate, type FencingRuleConfig } from './decide-fencing.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
// A count of 1: the percentage alone decides (a share counts only from two dead nodes), as before the count existed.
const config: FencingRuleConfig = { enabled: true, leaseTimeoutSeconds: 60, maxUnhealthy: { count: 1, percent: 20 }, pause: { go: true } };

/** aNode — an opted-in, Ready node in zone a with a fresh Lease; overrides make it what the row needs. */
const aNode = (name: string, o: Partial<FenceCandidate> = {}): FenceCandidate => ({
  name,
  uid: `uid-${name}`,
  zone: 'us-east-1a',
  optedIn: true,
  instanceId: `i-0${name.replace(/\D/g, '').padStart(16, '0')}`,
  ready: 'True',
  notReadySince: null,
  alreadyFenced: false,
  ...o,
});
/** hung — not Ready since long ago, its Lease last renewed `s` seconds ago (duration 40 s). */
const hung = (name: string, s = 300, o: Partial<FenceCandidate> = {}): FenceCandidate =>
  aNode(name, { ready: 'Unknown', notReadySince: ago(s - 40), lease: { renewTime: ago(s), durationSeconds: 40 }, ...o });
/** healthy — `n` Ready opted-in nodes in a zone, so a dead one is a small share. */
const healthy = (n: number, zone = 'us-east-1a', prefix = 'ok'): FenceCandidate[] =>
  Array.from({ length: n }, (_, i) => aNode(`${prefix}-${zone}-${i}`, { zone }));

describe('decideFencing', () => {
  it.each<[string, FenceCandidate[], string, string, FencingReason]>([
    ['a hung opted-in node among healthy ones is fenced', [hung('n-1'), ...healthy(9)], 'n-1', 'fence', FencingReason.FENCE],
    ['a node that did not opt in is never fenced', [hung('n-1', 300, { optedIn: false }), ...healthy(9)], 'n-1', 'skip', FencingReason.NOT_OPTED_IN],
    ['a NotReady node whose Lease was renewed 30 s ago waits', [hung('n-1', 30), ...healthy(9)], 'n-1', 'wait', FencingReason.LEASE_FRESH],
    ['a Lease renewed exactly duration + timeout ago is stale', [hung('n-1', 100), ...healthy(9)], 'n-1', 'fence', FencingReason.FENCE],
    ['a Lease renewed one second less than that is fresh', [hung('n-1', 99), ...healthy(9)], 'n-1', 'wait', FencingReason.LEASE_FRESH],
    ['a node without a Lease cannot be proven dead', [hung('n-1', 300, { lease: null }), ...healthy(9)], 'n-1', 'skip', FencingReason.LEASE_MISSING],
    ['a node fenced before is not fenced again', [hung('n-1', 300, { alreadyFenced: true }), ...healthy(9)], 'n-1', 'skip', FencingReason.ALREADY_FENCED],
    ['a node without an EC2 instance id is left', [hung('n-1', 300, { instanceId: null }), ...healthy(9)], 'n-1', 'skip', FencingReason.NO_INSTANCE_ID],
    ['a node whose kubelet says NotReady (False) is fenced like Unknown', [hung('n-1', 300, { ready: 'False' }), ...healthy(9)], 'n-1', 'fence', FencingReason.FENCE],
    ['one dead node in a zone of three is not a partition', [hung('n-1'), ...healthy(2), ...healthy(9, 'us-east-1b')], 'n-1', 'fence', FencingReason.FENCE],
    ['two dead of five in a zone suspend that zone', [hung('n-1'), hung('n-2'), ...healthy(3), ...healthy(20, 'us-east-1b')], 'n-1', 'skip', FencingReason.PARTITION_SUSPECTED],
    ['a dead node in a calm zone is still fenced while another zone is partitioned', [hung('n-1'), hung('n-2'), ...healthy(3), hung('n-3', 300, { zone: 'us-east-1b' }), ...healthy(20, 'us-east-1b')], 'n-3', 'fence', FencingReason.FENCE],
    ['seven of ten dead overall fences nothing', [...Array.from({ length: 7 }, (_, i) => hung(`d-${i}`, 300, { zone: ['us-east-1a', 'us-east-1b', 'us-east-1c'][i % 3]! })), ...healthy(1), ...healthy(1, 'us-east-1b'), ...healthy(1, 'us-east-1c')], 'd-0', 'skip', FencingReason.PARTITION_SUSPECTED],
    ['a NotReady node with a fresh Lease does not count towards the partition', [hung('n-1'), hung('n-2', 10), ...healthy(3)], 'n-1', 'fence', FencingReason.FENCE],
    ['a node fenced before does not count towards its zone\'s partition share', [hung('n-0', 300, { alreadyFenced: true }), hung('n-1'), ...healthy(3)], 'n-1', 'fence', FencingReason.FENCE],
    ['switched off, nothing is fenced', [hung('n-1'), ...healthy(9)], 'n-1', 'skip', FencingReason.DISABLED],
  ])('%s', (title, nodes, node, decision, reason) => {
    const d = decideFencing(nodes, NOW, title.startsWith('switched off') ? { ...config, enabled: false } : config);
    const v = d.verdicts.find((x) => x.node === node);
    expect(v).toMatchObject({ decision, reason });
    expect(d.fence.some((c) => c.name === node)).toBe(decision === 'fence');
  });

  it('gives Ready nodes no verdict — a Ready node with a stale Lease is left alone — and counts only opted-in nodes in the shares', () => {
    const staleButReady = aNode('r', { lease: { renewTime: ago(3600), durationSeconds: 40 } });
    const d = decideFencing([hung('n-1'), ...healthy(3), staleButReady, aNode('x', { optedIn: false, ready: 'Unknown', lease: null })], NOW, config);
    expect(d.verdicts.map((v) => v.node).sort()).toEqual(['n-1', 'x']);
    expect(d.fence.map((c) => c.name)).toEqual(['n-1']);
    expect(d.overall).toEqual({ dead: 1, total: 5, percent: 20, suspended: false });
  });

  it('reports per-zone shares and says when fencing is suspended', () => {
    const d = decideFencing([hung('n-1'), hung('n-2'), ...healthy(2), ...healthy(6, 'us-east-1b')], NOW, config);
    expect(d.zones).toEqual([
      { zone: 'us-east-1a', dead: 2, total: 4, percent: 50, suspended: true },
      { zone: 'us-east-1b', dead: 0, total: 6, percent: 0, suspended: false },
    ]);
    expect(d.overall.suspended).toBe(false);
    expect(d.suspended).toBe(true);
    expect(d.fence).toEqual([]);
  });

  it('asks to look again when the freshest waiting Lease goes stale', () => {
    const d = decideFencing([hung('n-1', 30), hung('n-2', 90), ...healthy(9)], NOW, config);
    expect(d.requeueAfterMs).toBe(10_000);
  });
});

/** limits — FENCING_MAX_UNHEALTHY_COUNT and FENCING_MAX_UNHEALTHY_PERCENT. */
const limits = (count: number, percent: number): FencingRuleConfig => ({ ...config, maxUnhealthy: { count, percent } });
/** dead — `n` hung nodes in a zone and pool. */
const dead = (n: number, zone = 'us-east-1a', nodePool: string | null = null, prefix = 'd'): FenceCandidate[] =>
  Array.from({ length: n }, (_, i) => hung(`${prefix}-${zone}-${nodePool ?? 'none'}-${i}`, 300, { zone, nodePool }));
/** fine — `n` Ready opted-in nodes in a zone and pool. */
const fine = (n: number, zone = 'us-east-1a', nodePool: string | null = null, prefix = 'ok'): FenceCandidate[] =>
  Array.from({ length: n }, (_, i) => aNode(`${prefix}-${zone}-${nodePool ?? 'none'}-${i}`, { zone, nodePool }));

describe('decideFencing: two-number limits — fencing stops where more than the count and more than the percentage look dead — overall, per zone and per pool', () => {
  it.each<[string, FenceCandidate[], FencingRuleConfig, string, 'fence' | 'skip', string]>([
    // overall
    ['overall: 7 of 10 dead passes 5 and 20% — suspended', [...dead(3, 'us-east-1a'), ...dead(2, 'us-east-1b'), ...dead(2, 'us-east-1c'), ...fine(1, 'us-east-1a'), ...fine(1, 'us-east-1b'), ...fine(1, 'us-east-1c')], limits(5, 20), 'd-us-east-1a-none-0', 'skip', '7 of 10 opted-in nodes look dead (70%: more than 5 nodes and more than 20%)'],
    ['overall: 6 of 1000 dead (0.6%) passes the count, not the share — fenced', [...dead(2, 'us-east-1a'), ...dead(2, 'us-east-1b'), ...dead(2, 'us-east-1c'), ...fine(330, 'us-east-1a'), ...fine(330, 'us-east-1b'), ...fine(334, 'us-east-1c')], limits(5, 20), 'd-us-east-1a-none-0', 'fence', ''],
    ['overall: 3 of 6 dead (50%) passes the share, within the count of 5 — fenced', [...dead(1, 'us-east-1a'), ...dead(1, 'us-east-1b'), ...dead(1, 'us-east-1c'), ...fine(1, 'us-east-1a'), ...fine(1, 'us-east-1b'), ...fine(1, 'us-east-1c')], limits(5, 20), 'd-us-east-1a-none-0', 'fence', ''],
    ['overall: the same 3 of 6 with a count of 2 — suspended', [...dead(1, 'us-east-1a'), ...dead(1, 'us-east-1b'), ...dead(1, 'us-east-1c'), ...fine(1, 'us-east-1a'), ...fine(1, 'us-east-1b'), ...fine(1, 'us-east-1c')], limits(2, 20), 'd-us-east-1a-none-0', 'skip', '3 of 6 opted-in nodes look dead'],
    // per zone
    ['zone: 3 dead of 4 in zone a (75%) pass a count of 2 — zone a suspended', [...dead(3, 'us-east-1a'), ...fine(1, 'us-east-1a'), ...fine(100, 'us-east-1b')], limits(2, 20), 'd-us-east-1a-none-0', 'skip', 'in us-east-1a'],
    ['zone: a dead node in zone b is fenced while zone a is suspended', [...dead(3, 'us-east-1a'), ...fine(1, 'us-east-1a'), ...dead(1, 'us-east-1b'), ...fine(100, 'us-east-1b')], limits(2, 20), 'd-us-east-1b-none-0', 'fence', ''],
    ['zone: 2 dead of 4 in a zone (50%) are within a count of 5 — a small zone still repairs', [...dead(2, 'us-east-1a'), ...fine(2, 'us-east-1a'), ...fine(100, 'us-east-1b')], limits(5, 20), 'd-us-east-1a-none-0', 'fence', ''],
    ['zone: 6 dead of 40 in a zone (15%) pass the count, not the share — fenced', [...dead(6, 'us-east-1a'), ...fine(34, 'us-east-1a'), ...fine(100, 'us-east-1b')], limits(5, 20), 'd-us-east-1a-none-0', 'fence', ''],
    // per pool
    ['pool: 3 dead of 4 in pool gpu, spread over zones, pass a count of 2 — pool gpu suspended', [hung('g-1', 300, { zone: 'us-east-1a', nodePool: 'gpu' }), hung('g-2', 300, { zone: 'us-east-1b', nodePool: 'gpu' }), hung('g-3', 300, { zone: 'us-east-1c', nodePool: 'gpu' }), ...fine(1, 'us-east-1c', 'gpu'), ...fine(50, 'us-east-1a', 'general'), ...fine(50, 'us-east-1b', 'general'), ...fine(50, 'us-east-1c', 'general')], limits(2, 20), 'g-1', 'skip', 'of pool gpu'],
    ['pool: a dead node of pool general is fenced while pool gpu is suspended', [hung('g-1', 300, { zone: 'us-east-1a', nodePool: 'gpu' }), hung('g-2', 300, { zone: 'us-east-1b', nodePool: 'gpu' }), hung('g-3', 300, { zone: 'us-east-1c', nodePool: 'gpu' }), ...fine(1, 'us-east-1c', 'gpu'), hung('x-1', 300, { zone: 'us-east-1c', nodePool: 'general' }), ...fine(50, 'us-east-1a', 'general'), ...fine(50, 'us-east-1b', 'general'), ...fine(50, 'us-east-1c', 'general')], limits(2, 20), 'x-1', 'fence', ''],
    ['pool: 2 dead of 3 in a small pool are within a count of 5 — it still repairs (not Karpenter\'s 20% alone)', [hung('s-1', 300, { zone: 'us-east-1a', nodePool: 'small' }), hung('s-2', 300, { zone: 'us-east-1b', nodePool: 'small' }), ...fine(1, 'us-east-1c', 'small'), ...fine(30, 'us-east-1a', 'big'), ...fine(30, 'us-east-1b', 'big'), ...fine(30, 'us-east-1c', 'big')], limits(5, 20), 's-1', 'fence', ''],
    ['one dead node is never a partition, even with a count of 0 in a pool of 2', [hung('s-1', 300, { nodePool: 'small' }), ...fine(1, 'us-east-1a', 'small'), ...fine(20, 'us-east-1b', 'big')], limits(0, 20), 's-1', 'fence', ''],
  ])('%s', (_title, nodes, cfg, node, decision, words) => {
    const d = decideFencing(nodes, NOW, cfg);
    const v = d.verdicts.find((x) => x.node === node)!;
    expect(v.decision).toBe(decision);
    expect(v.message).toContain(words);
    expect(d.fence.some((c) => c.name === node)).toBe(decision === 'fence');
  });

  it('reports the share of each pool beside the zones', () => {
    const d = decideFencing([hung('g-1', 300, { nodePool: 'gpu' }), hung('g-2', 300, { nodePool: 'gpu' }), ...fine(2, 'us-east-1a', 'gpu'), ...fine(6, 'us-east-1a', 'general')], NOW, limits(1, 40));
    expect(d.pools).toEqual([
      { nodePool: 'general', dead: 0, total: 6, percent: 0, suspended: false },
      { nodePool: 'gpu', dead: 2, total: 4, percent: 50, suspended: true },
    ]);
    expect(d.suspended).toBe(true);
  });
});

describe('decideFencing: the fleet-wide pause', () => {
  const paused = { go: false as const, reason: 'paused' as const, detail: 'disruptive actions paused by alice: bad rollout', pause: { reason: 'bad rollout', scope: 'disruptive' as const, pausedBy: 'alice', pausedAt: NOW.toISOString(), until: null, source: 'api' as const } };
  it.each<[string, FencingRuleConfig['pause'], string, FencingReason]>([
    ['paused: a node that would be fenced waits, reason PAUSED', paused, 'wait', FencingReason.PAUSED],
    ['the pause unknown: it waits too', { go: false, reason: 'pause_unknown', detail: 'the pause state is unknown' }, 'wait', FencingReason.PAUSED],
    ['running: it is fenced', { go: true }, 'fence', FencingReason.FENCE],
  ])('%s', (_t, pause, decision, reason) => {
    const d = decideFencing([hung('n-1'), ...healthy(9)], NOW, { ...config, ...(pause ? { pause } : {}) });
    expect(d.verdicts.find((v) => v.node === 'n-1')).toMatchObject({ decision, reason });
    expect(d.fence.length).toBe(decision === 'fence' ? 1 : 0);
  });
});

describe('decideEc2Step', () => {
  const deadline = new Date(NOW.getTime() + 60_000);
  const late = new Date(deadline.getTime() + 1);
  it.each<[string, Parameters<typeof decideEc2Step>[0], Date, string]>([
    ['EC2 reports the instance stopped: confirmed', { state: 'stopped' }, NOW, 'confirmed'],
    ['EC2 reports it terminated (for a stop, too): confirmed', { state: 'terminated' }, NOW, 'confirmed'],
    ['still stopping before the deadline: poll again', { state: 'stopping' }, NOW, 'poll'],
    ['EC2 throttles: poll again', { errorCode: 'EC2_THROTTLED', message: 'slow down' }, NOW, 'poll'],
    ['spot-advisor is away: poll again', { errorCode: 'SERVICE_UNAVAILABLE', message: 'no consumer' }, NOW, 'poll'],
    ['EC2 refuses (unauthorized): failed, nothing touched', { errorCode: 'EC2_UNAUTHORIZED', message: 'not allowed' }, NOW, 'failed:EC2_REFUSED'],
    ['EC2 is not configured: failed, nothing touched', { errorCode: 'AWS_NOT_CONFIGURED', message: 'no region' }, NOW, 'failed:EC2_REFUSED'],
    ['EC2 never confirms: failed at the deadline', { state: 'stopping' }, late, 'failed:EC2_NOT_CONFIRMED'],
    ['EC2 keeps failing past the deadline: failed', { errorCode: 'UPSTREAM_ERROR', message: '500' }, late, 'failed:EC2_NOT_CONFIRMED'],
  ])('%s', (_t, seen, now, expected) => {
    const d = decideEc2Step(seen, 'stopping', now, deadline, 'i-0abc');
    expect(d.next === 'failed' ? `failed:${d.reason}` : d.next).toBe(expected);
    if (d.next === 'failed') expect(d.message).toContain('the cluster was not touched');
  });
});
