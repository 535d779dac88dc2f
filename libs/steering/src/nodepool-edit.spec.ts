import { describe, expect, it } from '@jest/globals';
import { cheapestPrices, planNodePoolEdit, raisesPrices, type NodePoolEditInput, type PoolHealthView, type SteeringRails, type SteeringRecord } from './nodepool-edit.js';
import { admitted, CAPACITY_TYPE_KEY, INSTANCE_TYPE_KEY, ZONE_KEY, type Offering, type Requirement } from './requirements.js';

const TYPES = ['c5.large', 'm5.large', 'r5.large'];
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const OFFERINGS: Offering[] = TYPES.flatMap((t) =>
  ZONES.flatMap((z) => (['spot', 'on-demand'] as const).map((c) => ({ instanceType: t, zone: z, capacityType: c, labels: { 'karpenter.k8s.aws/instance-family': t.split('.')[0]! } }))),
);
const NOW = new Date('2026-06-10T12:00:00Z');

const req = (key: string, operator: string, ...values: string[]): Requirement => ({ key, operator, ...(values.length ? { values } : {}) });
const SPOT_AND_OD = req(CAPACITY_TYPE_KEY, 'In', 'spot', 'on-demand');
const SPOT_ONLY = req(CAPACITY_TYPE_KEY, 'In', 'spot');
const ALL_TYPES = req(INSTANCE_TYPE_KEY, 'In', ...TYPES);

/** avoid — a health map with the given `type/zone` pools in avoid. */
const avoid = (...pools: string[]): Map<string, PoolHealthView> => new Map(pools.map((p) => [p, { state: 'avoid' as const, share: 0.8 }]));

function plan(o: Partial<Omit<NodePoolEditInput, "rails">> & { requirements?: Requirement[]; rails?: Partial<SteeringRails> }) {
  return planNodePoolEdit({
    nodePool: 'general',
    requirements: o.requirements ?? [SPOT_AND_OD, ALL_TYPES],
    record: o.record ?? null,
    offerings: o.offerings ?? OFFERINGS,
    health: o.health ?? new Map(),
    rails: { maxExcludedShare: 0.5, keepCheapest: 3, ...o.rails },
    now: o.now ?? NOW,
    ...(o.nodes ? { nodes: o.nodes } : {}),
    ...(o.budgets !== undefined ? { budgets: o.budgets } : {}),
    ...(o.recentWrites ? { recentWrites: o.recentWrites } : {}),
    ...(o.launchesPerDay !== undefined ? { launchesPerDay: o.launchesPerDay } : {}),
    ...(o.fallbackApproved !== undefined ? { fallbackApproved: o.fallbackApproved } : {}),
  });
}

/** recordOf — what steering would have recorded after writing a plan. */
const recordOf = (p: ReturnType<typeof plan>, fallbackSince: Date | null = p.fallbackSince): SteeringRecord => ({ original: p.original, added: p.added, applied: p.after, fallbackSince });
const offered = (requirements: Requirement[]) => admitted(requirements, OFFERINGS).map((o) => `${o.instanceType}/${o.zone}/${o.capacityType}`);

describe('planNodePoolEdit', () => {
  it('nothing avoided: nothing to write', () => {
    const p = plan({});
    expect(p.write).toBe(false);
    expect(p.changes).toEqual([]);
    expect(p.sentence).toContain('Nothing to change');
  });

  it.each([
    ['one pool avoided: its type goes (loses 2 Spot + 3 on-demand), not its zone (would lose 8)', ['m5.large/us-east-1a'], 'instance-type', 'm5.large', 5],
    ['the type avoided in every zone: the type goes, losing only its on-demand', ['m5.large/us-east-1a', 'm5.large/us-east-1b', 'm5.large/us-east-1c'], 'instance-type', 'm5.large', 3],
    ['every type avoided in one zone: the zone goes', ['c5.large/us-east-1b', 'm5.large/us-east-1b', 'r5.large/us-east-1b'], 'zone', 'us-east-1b', 3],
  ] as const)('narrow: %s', (_, pools, kind, value, loses) => {
    const p = plan({ health: avoid(...pools) });
    expect(p.write).toBe(true);
    expect(p.changes).toEqual(['narrow']);
    expect(p.exclusions).toHaveLength(1);
    expect(p.exclusions[0]).toMatchObject({ kind, value, loses });
    expect(p.after).toEqual([SPOT_AND_OD, ALL_TYPES, req(kind === 'zone' ? ZONE_KEY : INSTANCE_TYPE_KEY, 'NotIn', value)]);
    for (const pool of pools) expect(offered(p.after)).not.toContain(`${pool}/spot`);
    expect(p.exclusions[0]!.sentence).toMatch(/^Exclude (instance type|zone) \S+: it keeps out .+ \(80% of its rebalances interrupted\)/);
  });

  it("the owner's entries are left as they are: steering adds its own", () => {
    const p = plan({ health: avoid('m5.large/us-east-1a') });
    expect(p.original).toEqual([SPOT_AND_OD, ALL_TYPES]);
    expect(p.added).toEqual([req(INSTANCE_TYPE_KEY, 'NotIn', 'm5.large')]);
  });

  it('healthy pools of the NodePool keep their offerings; other NodePools are not concerned', () => {
    const p = plan({ requirements: [SPOT_ONLY, req(INSTANCE_TYPE_KEY, 'In', 'c5.large')], health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.sentence).toContain('No pool of general is avoided');
  });

  it('restore: the pool recovered and every entry steering added goes — the requirements are the original exactly', () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const p = plan({ requirements: narrowed.after, record: recordOf(narrowed), health: new Map() });
    expect(p.write).toBe(true);
    expect(p.changes).toEqual(['restore']);
    expect(p.after).toEqual(narrowed.original);
    expect(p.added).toEqual([]);
  });

  it('an applied plan is stable: the next pass writes nothing', () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const p = plan({ requirements: narrowed.after, record: recordOf(narrowed), health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.changes).toEqual([]);
  });

  it('fallback: every Spot offering avoided and on-demand allowed → on-demand only', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const p = plan({ health: avoid(...all) });
    expect(p.fallback).toBe(true);
    expect(p.changes).toEqual(['fallback-to-on-demand']);
    expect(p.exclusions).toEqual([]);
    expect(p.added).toEqual([req(CAPACITY_TYPE_KEY, 'NotIn', 'spot')]);
    expect(p.offerings.after).toEqual({ spot: 0, onDemand: 9 });
    expect(p.fallbackSince).toEqual(NOW);
  });

  it('return to Spot: one Spot offering recovers → the fallback goes, what is still avoided is excluded, the on-demand nodes are to be replaced', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const fellBack = plan({ health: avoid(...all) });
    const later = new Date(NOW.getTime() + 3_600_000);
    const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: avoid(...all.filter((x) => x !== 'c5.large/us-east-1a')), now: later, rails: { maxExcludedShare: 1 } });
    expect(p.fallback).toBe(false);
    expect(p.changes).toContain('return-to-spot');
    expect(p.returnToSpot).toEqual({ fallbackSince: NOW });
    expect(offered(p.after).filter((o) => o.endsWith('/spot'))).toEqual(['c5.large/us-east-1a/spot']);
  });

  it('hysteresis: a recovered Spot offering that the rails cannot isolate from the avoided ones keeps the fallback', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const fellBack = plan({ health: avoid(...all) });
    const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: avoid(...all.filter((x) => x !== 'c5.large/us-east-1a')) });
    expect([p.fallback, p.write, p.returnToSpot]).toEqual([true, false, null]);
    expect(p.sentence).toContain('it stays on on-demand');
  });

  it('a fallback kept over passes keeps its start', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const fellBack = plan({ health: avoid(...all) });
    const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: avoid(...all), now: new Date(NOW.getTime() + 60_000) });
    expect([p.write, p.fallbackSince]).toEqual([false, NOW]);
  });

  it('never zero offerings: every Spot offering avoided and on-demand not allowed → nothing excluded, held back', () => {
    const p = plan({ requirements: [SPOT_ONLY, req(INSTANCE_TYPE_KEY, 'In', 'm5.large'), req(ZONE_KEY, 'In', 'us-east-1a')], health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.heldBack).toEqual([expect.objectContaining({ reason: 'no-on-demand' })]);
    expect(p.offerings.after.spot).toBe(1);
  });

  it('never zero offerings: an exclusion that would leave no healthy Spot offering is not made', () => {
    // Spot only, two types in one zone: c5 avoided; m5 healthy. Excluding the zone would leave nothing: the type goes.
    const p = plan({ requirements: [SPOT_ONLY, req(INSTANCE_TYPE_KEY, 'In', 'c5.large', 'm5.large'), req(ZONE_KEY, 'In', 'us-east-1a')], health: avoid('c5.large/us-east-1a') });
    expect(p.exclusions.map((e) => [e.kind, e.value])).toEqual([['instance-type', 'c5.large']]);
    expect(p.offerings.after.spot).toBe(1);
  });

  it("minValues: an exclusion that breaks the owner's minValues is held back", () => {
    const flexible = { ...req(INSTANCE_TYPE_KEY, 'In', 'c5.large', 'm5.large'), minValues: 2 };
    const p = plan({ requirements: [SPOT_ONLY, flexible, req(ZONE_KEY, 'In', 'us-east-1a', 'us-east-1b')], health: avoid('c5.large/us-east-1a'), rails: { maxExcludedShare: 1 } });
    // Excluding c5.large breaks minValues; excluding us-east-1a keeps both types in us-east-1b.
    expect(p.exclusions.map((e) => [e.kind, e.value])).toEqual([['zone', 'us-east-1a']]);
    const both = plan({ requirements: [SPOT_ONLY, flexible, req(ZONE_KEY, 'In', 'us-east-1a')], health: avoid('c5.large/us-east-1a'), rails: { maxExcludedShare: 1 } });
    expect(both.heldBack).toEqual([expect.objectContaining({ reason: 'min-values' })]);
  });

  it('rail: no more than the bound on the share of offerings excluded', () => {
    const p = plan({ health: avoid('m5.large/us-east-1a', 'c5.large/us-east-1b'), rails: { maxExcludedShare: 0.4 } });
    // 18 offerings: one type is 6 (33%), two types 12 (67%) > 40%.
    expect(p.exclusions).toHaveLength(1);
    expect(p.heldBack).toEqual([expect.objectContaining({ reason: 'excluded-share-rail' })]);
    expect(p.heldBack[0]!.sentence).toContain('more than 40% of general');
  });

  it("someone else's edit is kept: re-planned on their requirements, steering's entry re-applied, never overwritten", () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const theirs = [...narrowed.after.filter((r) => r.key !== INSTANCE_TYPE_KEY || r.operator !== 'In'), req(INSTANCE_TYPE_KEY, 'In', 'm5.large', 'r5.large'), req('team', 'In', 'payments')];
    const p = plan({ requirements: theirs, record: recordOf(narrowed), health: avoid('m5.large/us-east-1a') });
    expect(p.foreignEdit).toBe(true);
    expect(p.original).toEqual([SPOT_AND_OD, req(INSTANCE_TYPE_KEY, 'In', 'm5.large', 'r5.large'), req('team', 'In', 'payments')]);
    // Re-planned on their requirements: with c5.large gone, the zone now loses fewer offerings than the type.
    expect(p.after).toEqual([...p.original, req(ZONE_KEY, 'NotIn', 'us-east-1a')]);
    expect(p.changes).toContain('replan-after-foreign-edit');
    expect(p.sentence).toContain('changed by someone else');
  });

  it("someone else removed steering's entry: it is written again, the rest of their change kept", () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const p = plan({ requirements: narrowed.original, record: recordOf(narrowed), health: avoid('m5.large/us-east-1a') });
    expect(p.foreignEdit).toBe(true);
    expect(p.after).toEqual(narrowed.after);
  });

  it('a NodePool without a capacity-type requirement launches on-demand only: nothing to steer', () => {
    const p = plan({ requirements: [ALL_TYPES], health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.offerings.original).toEqual({ spot: 0, onDemand: 9 });
  });

  it('two avoided pools in different types and zones: each excluded the smallest way', () => {
    const p = plan({ health: avoid('m5.large/us-east-1a', 'c5.large/us-east-1b'), rails: { maxExcludedShare: 0.8 } });
    // c5.large first (a tie of 5 offerings lost, the type preferred); then us-east-1a loses 3 where m5.large would lose 5.
    expect(p.exclusions.map((e) => [e.kind, e.value, e.loses])).toEqual([['instance-type', 'c5.large', 5], ['zone', 'us-east-1a', 3]]);
    expect(p.added).toEqual([req(INSTANCE_TYPE_KEY, 'NotIn', 'c5.large'), req(ZONE_KEY, 'NotIn', 'us-east-1a')]);
  });

  it('a requirement on a label no offering carries does not constrain offerings', () => {
    expect(offered([SPOT_ONLY, req('team', 'In', 'payments')])).toHaveLength(9);
    expect(offered([SPOT_ONLY, req('karpenter.k8s.aws/instance-family', 'NotIn', 'c5')])).toHaveLength(6);
  });

  describe("the cheapest offerings' prices are kept (rails.keepCheapest)", () => {
    /** market — the pools' Spot prices ($/h; the others at $0.05), the given ones avoided. */
    const market = (prices: Record<string, number>, ...avoided: string[]): Map<string, PoolHealthView> =>
      new Map(TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`)).map((p) => [p, { state: avoided.includes(p) ? ('avoid' as const) : ('healthy' as const), share: 0.8, spotPerHour: prices[p] ?? 0.05 }]));

    it.each([
      ['the zone goes when the type would take out a cheap offering, though the type loses no more', { 'm5.large/us-east-1b': 0.01, 'm5.large/us-east-1c': 0.011 }, 2, [['zone', 'us-east-1a']]],
      ['the type goes when the zone would take out a cheap offering', { 'c5.large/us-east-1a': 0.01, 'r5.large/us-east-1a': 0.011 }, 2, [['instance-type', 'm5.large']]],
      ['kept offerings are counted among those not avoided: an avoided cheap pool keeps nothing', { 'm5.large/us-east-1a': 0.001 }, 1, [['instance-type', 'm5.large']]],
      ['keepCheapest 0 keeps nothing: the smallest exclusion, as before', { 'm5.large/us-east-1b': 0.01, 'm5.large/us-east-1c': 0.011 }, 0, [['instance-type', 'm5.large']]],
    ] as const)('%s', (_, prices, keepCheapest, want) => {
      const p = plan({ health: market(prices, 'm5.large/us-east-1a'), rails: { keepCheapest } });
      expect(p.exclusions.map((e) => [e.kind, e.value])).toEqual(want);
      expect(p.heldBack).toEqual([]);
    });

    it('the plan says why the smaller exclusion was refused', () => {
      const p = plan({ health: market({ 'm5.large/us-east-1b': 0.01, 'm5.large/us-east-1c': 0.011 }, 'm5.large/us-east-1a'), rails: { keepCheapest: 2 } });
      expect(p.exclusions[0]!.alternative).toEqual({ kind: 'instance-type', value: 'm5.large', loses: 5, refused: 'launch-price-rail' });
      expect(p.exclusions[0]!.sentence).toContain('excluding instance type m5.large instead would lose 5 and take out m5.large in us-east-1b, m5.large in us-east-1c, among the cheapest.');
    });

    it('an avoided pool that only a cheap offering can cover is held back (launch-price-rail), saying what each way would take out', () => {
      const p = plan({ health: market({ 'm5.large/us-east-1b': 0.01, 'c5.large/us-east-1a': 0.012 }, 'm5.large/us-east-1a'), rails: { keepCheapest: 2 } });
      expect([p.write, p.exclusions]).toEqual([false, []]);
      expect(p.heldBack).toEqual([expect.objectContaining({ pool: { instanceType: 'm5.large', zone: 'us-east-1a' }, reason: 'launch-price-rail' })]);
      expect(p.heldBack[0]!.sentence).toBe(
        "m5.large in us-east-1a is kept: excluding instance type m5.large would take out m5.large in us-east-1b ($0.010/h) and excluding zone us-east-1a would take out c5.large in us-east-1a ($0.012/h), among general's 2 cheapest Spot offerings that are not avoided, with nothing as cheap left instead — Karpenter's launches would move to dearer pools.",
      );
    });

    it('an offering as cheap takes the place of one taken out: every price equal, the type goes as before', () => {
      const p = plan({ health: market({}, 'm5.large/us-east-1a') });
      expect([p.exclusions.map((e) => e.value), p.heldBack]).toEqual([['m5.large'], []]);
    });

    it('offerings without a price are never among the kept ones', () => {
      const health = new Map<string, PoolHealthView>([['m5.large/us-east-1a', { state: 'avoid' }], ['m5.large/us-east-1b', { state: 'healthy', spotPerHour: null }]]);
      const spot = OFFERINGS.filter((o) => o.capacityType === 'spot');
      expect(cheapestPrices(spot, health, 3)).toEqual([]);
      expect(plan({ health }).exclusions.map((e) => e.value)).toEqual(['m5.large']);
    });

    it('the cheapest prices are taken ascending, as many as asked', () => {
      const spot = OFFERINGS.filter((o) => o.capacityType === 'spot');
      expect(cheapestPrices(spot, market({ 'r5.large/us-east-1c': 0.01, 'c5.large/us-east-1b': 0.02, 'c5.large/us-east-1a': 0.03 }), 3)).toEqual([0.01, 0.02, 0.03]);
    });

    it.each([
      ['the same prices', [0.01, 0.02, 0.03], [0.01, 0.02, 0.03], false],
      ['an offering as cheap took the place of the one taken out', [0.01, 0.02, 0.02], [0.01, 0.02, 0.02], false],
      ['the second cheapest went, a dearer one in its place', [0.01, 0.02, 0.03], [0.01, 0.03, 0.05], true],
      ['fewer left, at the same prices', [0.01, 0.02, 0.03], [0.01, 0.02], false],
    ] as const)('raisesPrices: %s', (_, before, after, want) => {
      expect(raisesPrices(before, after)).toBe(want);
    });

    it('a pool held back to keep the cheapest offerings does not hold an on-demand fallback: the NodePool returns to Spot', () => {
      const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
      const fellBack = plan({ health: market({}, ...all) });
      // c5.large recovers in every zone, cheapest; m5.large/us-east-1a can then only be kept out by taking one of them.
      const recovered = all.filter((x) => !x.startsWith('c5.large') && x !== 'm5.large/us-east-1b');
      const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: market({ 'c5.large/us-east-1a': 0.01, 'm5.large/us-east-1b': 0.011 }, ...recovered), rails: { keepCheapest: 2, maxExcludedShare: 1 } });
      expect(p.fallback).toBe(false);
      expect(p.changes).toContain('return-to-spot');
      expect(p.heldBack.map((h) => h.reason)).toContain('launch-price-rail');
    });
  });
});

describe('planNodePoolEdit with drift (running nodes known)', () => {
  /** priced — every pool at $0.03/h Spot and $0.09/h on-demand, some avoided, some overridden. */
  const priced = (avoided: string[], prices: Record<string, number> = {}, extra: Record<string, Partial<PoolHealthView>> = {}): Map<string, PoolHealthView> =>
    new Map(TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`)).map((p) => [p, { state: avoided.includes(p) ? ('avoid' as const) : ('healthy' as const), share: 0.8, spotPerHour: prices[p] ?? 0.03, onDemandPerHour: 0.09, ...extra[p] }]));
  /** nodes — running Spot nodes per `type/zone`. */
  const nodes = (counts: Record<string, number>, capacityType: 'spot' | 'on-demand' = 'spot') =>
    Object.entries(counts).map(([k, count]) => ({ instanceType: k.split('/')[0]!, zone: k.split('/')[1]!, capacityType, count }));

  it('the plan states the nodes its write drifts, per pool: on purpose in the avoided pool, collateral elsewhere, and the price after', () => {
    const p = plan({ health: priced(['m5.large/us-east-1a']), nodes: nodes({ 'm5.large/us-east-1a': 4, 'm5.large/us-east-1b': 2, 'c5.large/us-east-1a': 3 }), rails: { keepCheapest: 0 } });
    // The type drifts 2 healthy nodes (m5.large in us-east-1b), the zone would drift 3 (c5.large in us-east-1a).
    expect(p.exclusions.map((e) => [e.kind, e.value])).toEqual([['instance-type', 'm5.large']]);
    expect(p.drift).toMatchObject({ total: 6, onPurpose: 4, collateral: 2 });
    expect(p.drift!.byPool).toEqual([
      { pool: { instanceType: 'm5.large', zone: 'us-east-1a' }, capacityType: 'spot', nodes: 4, avoided: true },
      { pool: { instanceType: 'm5.large', zone: 'us-east-1b' }, capacityType: 'spot', nodes: 2, avoided: false },
    ]);
  });

  it.each([
    ['the type drifts 2 healthy nodes, the zone 6: the type goes', { 'm5.large/us-east-1a': 4, 'm5.large/us-east-1b': 2, 'c5.large/us-east-1a': 6 }, 'instance-type', 2],
    ['the type drifts 6 healthy nodes, the zone 1: the zone goes, though it loses more offerings', { 'm5.large/us-east-1a': 4, 'm5.large/us-east-1b': 6, 'c5.large/us-east-1a': 1 }, 'zone', 1],
  ] as const)('the best trade: %s', (_, counts, kind, collateral) => {
    const p = plan({ health: priced(['m5.large/us-east-1a']), nodes: nodes(counts), rails: { keepCheapest: 0 } });
    expect(p.exclusions[0]).toMatchObject({ kind, drifts: { onPurpose: 4, collateral } });
    expect(p.drift).toMatchObject({ total: 4 + collateral, onPurpose: 4, collateral, usdPerHourBefore: (4 + collateral) * 0.03 });
    expect(p.drift!.sentence).toMatch(/^The write drifts \d+ running nodes \(4 in m5\.large in us-east-1a, .+ \(collateral\)\): Karpenter replaces each, launching first, then draining — \d+ disruptions, \$0\.\d{3}\/h now, about \$0\.\d{3}\/h after\.$/);
  });

  it('widening drifts nothing: a restore states 0 nodes', () => {
    const narrowed = plan({ health: priced(['m5.large/us-east-1a']) });
    const p = plan({ requirements: narrowed.after, record: recordOf(narrowed), health: priced([]), nodes: nodes({ 'c5.large/us-east-1a': 5 }) });
    expect(p.changes).toEqual(['restore']);
    expect(p.drift).toMatchObject({ total: 0 });
  });

  it.each([
    ['per NodePool: 5 at most, the exclusion would drift 6', { maxDriftPerNodePool: 5 }],
    ['fleet-wide per hour: 3 left this hour', { driftLeft: 3 }],
  ] as const)('the drift rail holds an exclusion back with the reason — %s', (_, rails) => {
    const p = plan({ health: priced(['m5.large/us-east-1a']), nodes: nodes({ 'm5.large/us-east-1a': 4, 'm5.large/us-east-1b': 2, 'c5.large/us-east-1a': 6 }), rails: { keepCheapest: 0, ...rails } });
    expect([p.write, p.exclusions]).toEqual([false, []]);
    expect(p.heldBack[0]).toMatchObject({ reason: 'drift-rail', keepOut: { drifts: 6 } });
    expect(p.heldBack[0]!.sentence).toMatch(/excluding it would drift 6 running nodes, more than the \d the drift rails allow now/);
  });

  it("steering paces its own drift with a Drifted budget entry, next to the owner's, and removes it exactly with its entries", () => {
    const owner = [{ nodes: '10%' }, { nodes: '0', reasons: ['Underutilized'], schedule: '0 9 * * *', duration: '8h' }];
    const narrowed = plan({ health: priced(['m5.large/us-east-1a']), budgets: owner, rails: { driftBudgetNodes: '2' } });
    expect(narrowed.budgetsAfter).toEqual([...owner, { nodes: '2', reasons: ['Drifted'] }]);
    expect(narrowed.sentence).toContain('Steering paces the drift it causes with a budget of 2 for reason Drifted');
    const record = { ...recordOf(narrowed), addedBudgets: narrowed.addedBudgets };
    const restored = plan({ requirements: narrowed.after, record, budgets: narrowed.budgetsAfter, health: priced([]), rails: { driftBudgetNodes: '2' } });
    expect(restored.after).toEqual(restored.original);
    expect(restored.budgetsAfter).toEqual(owner);
    expect(restored.write).toBe(true);
  });

  it('a budget change alone is a write; budgets not read are left alone', () => {
    expect(plan({ health: priced(['m5.large/us-east-1a']) }).budgetsAfter).toBeNull();
    const narrowed = plan({ health: priced(['m5.large/us-east-1a']) });
    const p = plan({ requirements: narrowed.after, record: recordOf(narrowed), budgets: [], health: priced(['m5.large/us-east-1a']), rails: { driftBudgetNodes: '10%' } });
    // No budgets is Karpenter's default of 10% for every reason: writing a list replaces it, so the default is written too.
    expect([p.write, p.budgetsAfter]).toEqual([true, [{ nodes: '10%' }, { nodes: '10%', reasons: ['Drifted'] }]]);
    const undone = plan({ requirements: p.after, record: { ...recordOf(p), addedBudgets: p.addedBudgets }, budgets: p.budgetsAfter, health: priced([]), rails: { driftBudgetNodes: '10%' } });
    expect(undone.budgetsAfter).toEqual([]);
  });

  const allAvoided = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
  it.each([
    ['under the cap: it falls back, stating the Spot nodes replaced and the extra per hour', 1, false, true],
    ['above the cap: held back (fallback-cost)', 0.5, false, false],
    ['above the cap but approved: it falls back', 0.5, true, true],
  ] as const)('the on-demand fallback is an explicit, dearer decision — %s', (_, cap, approved, falls) => {
    const p = plan({ health: priced(allAvoided), nodes: nodes({ 'm5.large/us-east-1a': 10, 'c5.large/us-east-1b': 2 }), rails: { maxFallbackExtraPerHour: cap }, fallbackApproved: approved });
    expect(p.fallback).toBe(falls);
    if (falls) {
      expect(p.fallbackCost).toMatchObject({ spotNodes: 12, approved });
      expect(p.fallbackCost!.extraPerHour).toBeCloseTo(12 * (0.09 - 0.03), 6);
      expect(p.sentence).toContain('The fallback replaces 12 Spot nodes with on-demand at $0.720/h more');
      expect(p.drift).toMatchObject({ total: 12 });
    } else {
      expect(p.heldBack.every((h) => h.reason === 'fallback-cost')).toBe(true);
      expect(p.heldBack[0]!.sentence).toContain('would replace 12 Spot nodes with on-demand at $0.720/h more, above the $0.500/h allowed without an approval');
    }
  });

  it.each([
    ['2 writes in the last day, 3 allowed: written', 2, true],
    ['3 writes in the last day, 3 allowed: held, with the reason', 3, false],
  ] as const)('the daily write rail — %s', (_, n, write) => {
    const recentWrites = Array.from({ length: n }, (_, i) => new Date(NOW.getTime() - (i + 1) * 3_600_000));
    const p = plan({ health: priced(['m5.large/us-east-1a']), recentWrites, rails: { maxWritesPerDay: 3 } });
    expect(p.write).toBe(write);
    if (!write) {
      expect(p.held).toMatchObject({ reason: 'write-rate-rail' });
      expect(p.sentence).toContain('was written 3 times by steering in the last 24 h, the most allowed (3)');
      expect(p.after).toContainEqual(req(INSTANCE_TYPE_KEY, 'NotIn', 'm5.large'));
    }
  });

  it('price hysteresis: a written exclusion survives a small price step that a new one would not pass', () => {
    // m5.large in us-east-1b and c5.large in us-east-1a tie as the cheapest: excluding the type raises nothing.
    const cheap = { 'm5.large/us-east-1b': 0.02, 'c5.large/us-east-1a': 0.02 };
    const first = plan({ health: priced(['m5.large/us-east-1a'], cheap), rails: { keepCheapest: 1, priceHysteresis: 0.05 } });
    expect(first.exclusions.map((e) => e.value)).toEqual(['m5.large']);
    // c5.large in us-east-1a steps up 2.5%: a new exclusion of the type would now raise the cheapest price, the written one stays.
    const stepped = { 'm5.large/us-east-1b': 0.02, 'c5.large/us-east-1a': 0.0205 };
    const fresh = plan({ health: priced(['m5.large/us-east-1a'], stepped), rails: { keepCheapest: 1, priceHysteresis: 0.05 } });
    const kept = plan({ requirements: first.after, record: recordOf(first), health: priced(['m5.large/us-east-1a'], stepped), rails: { keepCheapest: 1, priceHysteresis: 0.05 } });
    expect(fresh.exclusions.map((e) => e.value)).not.toContain('m5.large');
    expect(kept.exclusions.map((e) => e.value)).toEqual(['m5.large']);
    expect(kept.write).toBe(false);
  });

  it('the cheapest-prices rail does not protect a risky pool: a cheap pool watched for its rate can be excluded with the avoided one', () => {
    const cheap = { 'm5.large/us-east-1b': 0.01 };
    const safe = plan({ health: priced(['m5.large/us-east-1a'], cheap), rails: { keepCheapest: 1 } });
    const risky = plan({ health: priced(['m5.large/us-east-1a'], cheap, { 'm5.large/us-east-1b': { risky: true } }), rails: { keepCheapest: 1 } });
    expect(safe.exclusions.map((e) => e.value)).toEqual(['us-east-1a']);
    expect(risky.exclusions.map((e) => e.value)).toEqual(['m5.large']);
  });

  it('a held-back pool says how many launches it still takes and what keeping it out would cost', () => {
    const health = priced(['m5.large/us-east-1a'], { 'm5.large/us-east-1a': 0.009, 'm5.large/us-east-1b': 0.01, 'c5.large/us-east-1a': 0.012 });
    const p = plan({ health, nodes: nodes({ 'm5.large/us-east-1a': 30, 'm5.large/us-east-1b': 30, 'c5.large/us-east-1a': 40 }), launchesPerDay: 60, rails: { keepCheapest: 2 } });
    expect(p.heldBack[0]).toMatchObject({ reason: 'launch-price-rail', launchShare: 0.5, launchesPerDay: 30 });
    // The zone's way takes out c5.large in us-east-1a ($0.012/h), the type's m5.large in us-east-1b ($0.010/h): the zone is cheaper.
    expect(p.heldBack[0]!.keepOut).toMatchObject({ kind: 'zone', value: 'us-east-1a', drifts: 70 });
    expect(p.heldBack[0]!.keepOut!.extraPerHour).toBeCloseTo(100 * ((0.01 + 0.03) / 2 - (0.01 + 0.012) / 2), 4);
    expect(p.heldBack[0]!.sentence).toMatch(/It still takes about 1 in 2 of general's Spot launches \(about 30 a day\); keeping it out by excluding zone us-east-1a would cost \$0\.900\/h more and drift 70 nodes\.$/);
  });
});
