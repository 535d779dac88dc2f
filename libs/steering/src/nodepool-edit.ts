import type { PoolHealthState, PoolRef } from './pool-health.js';
import {
  admitted,
  CAPACITY_TYPE_KEY,
  catalogueKeys,
  INSTANCE_TYPE_KEY,
  minValuesHeld,
  offeringKey,
  poolKeyOf,
  sameRequirement,
  sameRequirements,
  ZONE_KEY,
  type Offering,
  type Requirement,
} from './requirements.js';
import { pct } from './stats.js';

/**
 * SteeringRecord — what nodes-manager wrote to a NodePool last, kept so that every change can be undone exactly:
 * the owner's requirements as they were (`original`), the entries added (`added`), the whole list as written
 * (`applied`: what a NodePool nobody else touched still has), and since when it has been on on-demand.
 */
export interface SteeringRecord {
  original: Requirement[];
  added: Requirement[];
  applied: Requirement[];
  fallbackSince: Date | null;
}

/**
 * PoolHealthView — what the planner needs of a pool: its state, for sentences its share, and its Spot price (USD per
 * hour; what Karpenter ranks offerings by, so what tells the cheapest offerings apart — see SteeringRails.keepCheapest).
 */
export interface PoolHealthView {
  state: PoolHealthState;
  share?: number | null;
  spotPerHour?: number | null;
}

/** SteeringRails — bounds on one NodePool's edit (docs/steering.md#the-rails). */
export interface SteeringRails {
  /** Offerings steering may exclude, as a share of those the owner's requirements admit (the fallback is exempt). */
  maxExcludedShare: number;
  /**
   * How many of the NodePool's cheapest priced Spot offerings that are not avoided keep their prices: no exclusion may
   * make the n-th cheapest of them dearer, for n up to this (0: no such bound). Karpenter launches Spot into the
   * cheapest offerings it is allowed (price-capacity-optimized): an exclusion that takes one of them out, with nothing
   * as cheap to take its place, sends later launches to dearer pools, where the nodes stay — that collateral loss,
   * more than the avoided pool itself, is what steering cost (docs/steering.md#the-edit).
   */
  keepCheapest: number;
}

export interface NodePoolEditInput {
  nodePool: string;
  /** The requirements as read now (`spec.template.spec.requirements`). */
  requirements: readonly Requirement[];
  record: SteeringRecord | null;
  /** Every offering of the region (the catalogue the requirements are read against). */
  offerings: readonly Offering[];
  /** Pool health by `instanceType/zone`; a pool missing is healthy. */
  health: ReadonlyMap<string, PoolHealthView>;
  rails: SteeringRails;
  now: Date;
}

export type ExclusionKind = 'instance-type' | 'zone';

/** Exclusion — one value steering keeps out of a NodePool, with the avoided pools it covers and its cost in offerings. */
export interface Exclusion {
  kind: ExclusionKind;
  value: string;
  covers: PoolRef[];
  /** Offerings lost that are not avoided (other zones of the type, other types of the zone, on-demand included). */
  loses: number;
  /** The other way to cover the first pool, what it would have lost, and the rail that refused it, if one did (null: no other way). */
  alternative: { kind: ExclusionKind; value: string; loses: number; refused: HeldBackReason | null } | null;
  sentence: string;
}

export type HeldBackReason = 'would-leave-no-spot' | 'min-values' | 'launch-price-rail' | 'excluded-share-rail' | 'no-on-demand';

export type NodePoolEditChange = 'narrow' | 'restore' | 'fallback-to-on-demand' | 'return-to-spot' | 'replan-after-foreign-edit';

export interface OfferingCounts {
  spot: number;
  onDemand: number;
}

/** NodePoolEditPlan — the requirements steering wants on one NodePool, how they differ from now, and why. */
export interface NodePoolEditPlan {
  nodePool: string;
  /** The requirements differ from those read: a write is planned. */
  write: boolean;
  before: Requirement[];
  after: Requirement[];
  /** The owner's requirements: `before` without steering's entries. `after` is these plus `added`. */
  original: Requirement[];
  added: Requirement[];
  exclusions: Exclusion[];
  fallback: boolean;
  fallbackSince: Date | null;
  /** The on-demand fallback ends with this plan: the nodes launched on on-demand since then are to be replaced. */
  returnToSpot: { fallbackSince: Date | null } | null;
  changes: NodePoolEditChange[];
  /** The NodePool no longer holds what steering wrote: someone else changed it; their change is kept. */
  foreignEdit: boolean;
  heldBack: Array<{ pool: PoolRef; reason: HeldBackReason; sentence: string }>;
  offerings: { before: OfferingCounts; after: OfferingCounts; original: OfferingCounts };
  sentence: string;
}

const FALLBACK: Requirement = { key: CAPACITY_TYPE_KEY, operator: 'NotIn', values: ['spot'] };
const KEY_OF: Record<ExclusionKind, string> = { 'instance-type': INSTANCE_TYPE_KEY, zone: ZONE_KEY };

/** ownerRequirements — the requirements read, without the entries steering added (those still there, as written). */
export function ownerRequirements(requirements: readonly Requirement[], record: SteeringRecord | null): Requirement[] {
  const left = [...requirements];
  for (const a of record?.added ?? []) {
    const i = left.findIndex((r) => sameRequirement(r, a));
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}

/** steeringEntries — the requirement entries for a set of exclusions and the fallback: one `NotIn` per key. */
export function steeringEntries(types: readonly string[], zones: readonly string[], fallback: boolean): Requirement[] {
  const out: Requirement[] = [];
  if (types.length > 0) out.push({ key: INSTANCE_TYPE_KEY, operator: 'NotIn', values: [...types].sort() });
  if (zones.length > 0) out.push({ key: ZONE_KEY, operator: 'NotIn', values: [...zones].sort() });
  if (fallback) out.push({ ...FALLBACK, values: [...FALLBACK.values!] });
  return out;
}

function previousExclusions(record: SteeringRecord | null): { types: Set<string>; zones: Set<string>; fallback: boolean } {
  const added = record?.added ?? [];
  const values = (key: string) => new Set(added.filter((r) => r.key === key && r.operator === 'NotIn').flatMap((r) => r.values ?? []));
  return { types: values(INSTANCE_TYPE_KEY), zones: values(ZONE_KEY), fallback: added.some((r) => sameRequirement(r, FALLBACK)) };
}

const counts = (os: readonly Offering[]): OfferingCounts => ({
  spot: os.filter((o) => o.capacityType === 'spot').length,
  onDemand: os.filter((o) => o.capacityType === 'on-demand').length,
});

const poolText = (p: PoolRef) => `${p.instanceType} in ${p.zone}`;
const kindText = (k: ExclusionKind, v: string) => (k === 'instance-type' ? `instance type ${v}` : `zone ${v}`);

/**
 * planNodePoolEdit — the requirements a NodePool should have given its pools' health (docs/steering.md#the-edit).
 * Pure; re-planned from the owner's requirements on every pass, so that it is level-triggered and a change someone
 * else made meanwhile is kept, never overwritten.
 *
 * - Every Spot offering the owner's requirements admit that is `avoid` is excluded by the smallest exclusion a
 *   conjunction per key can express: its instance type or its zone, whichever loses fewer offerings that are not
 *   avoided per avoided pool covered (greedy; ties keep what is already written, then the type). Each is one
 *   `NotIn` entry of steering's own, beside the owner's entries, so the undo is removing it.
 * - Never zero offerings: no exclusion may leave the NodePool without a Spot offering that is not avoided, break an
 *   owner's `minValues`, or exclude more than `rails.maxExcludedShare` of the offerings; a pool that cannot be
 *   covered is held back, with the reason.
 * - When every Spot offering is avoided and the owner allows on-demand, the NodePool falls back to on-demand
 *   (`karpenter.sh/capacity-type NotIn [spot]`); when one recovers, it returns to Spot and `returnToSpot` asks for the
 *   on-demand nodes launched meanwhile to be replaced. Without on-demand nothing is excluded (held back).
 * - With no pool avoided, `after` is the owner's requirements exactly: everything steering added is undone.
 */
export function planNodePoolEdit(input: NodePoolEditInput): NodePoolEditPlan {
  const { record, offerings, health, rails } = input;
  const before = input.requirements.map((r) => ({ ...r, values: r.values ? [...r.values] : undefined }));
  const original = ownerRequirements(before, record);
  const foreignEdit = record !== null && !sameRequirements(before, record.applied);
  const keys = catalogueKeys(offerings);
  const owned = admitted(original, offerings, keys);
  const isAvoided = (o: Offering) => o.capacityType === 'spot' && health.get(poolKeyOf(o))?.state === 'avoid';
  const avoided = owned.filter(isAvoided);
  const healthySpot = owned.filter((o) => o.capacityType === 'spot' && !isAvoided(o));
  const cheapest = cheapestPrices(healthySpot, health, rails.keepCheapest);
  const prev = previousExclusions(record);

  const exclusions: Exclusion[] = [];
  const heldBack: NodePoolEditPlan['heldBack'] = [];
  let fallback = false;
  let stayReason: string | null = null;

  if (avoided.length > 0 && healthySpot.length === 0) {
    if (owned.some((o) => o.capacityType === 'on-demand')) fallback = true;
    else {
      for (const o of avoided) {
        heldBack.push({ pool: { instanceType: o.instanceType, zone: o.zone }, reason: 'no-on-demand', sentence: `${poolText(o)} is kept: every Spot offering of ${input.nodePool} is avoided and it does not allow on-demand.` });
      }
    }
  } else if (avoided.length > 0) {
    const cover = coverAvoided({ nodePool: input.nodePool, owned, original, isAvoided, health, rails, prev, cheapest });
    const ownerAllowsOnDemand = owned.some((o) => o.capacityType === 'on-demand');
    // A pool held back only to keep the cheapest Spot offerings' prices does not hold the fallback: those offerings
    // are a cheaper way to run than on-demand, the avoided pool among them or not.
    if (prev.fallback && cover.heldBack.some((h) => h.reason !== 'launch-price-rail') && ownerAllowsOnDemand) {
      // Hysteresis: back to Spot only when the avoided pools can all be kept out.
      fallback = true;
      stayReason = `A Spot offering of ${input.nodePool} recovered, but returning to Spot would offer avoided pools the rails do not let steering exclude: it stays on on-demand.`;
    } else {
      exclusions.push(...cover.exclusions);
      heldBack.push(...cover.heldBack);
    }
  }

  const types = exclusions.filter((e) => e.kind === 'instance-type').map((e) => e.value);
  const zones = exclusions.filter((e) => e.kind === 'zone').map((e) => e.value);
  const added = steeringEntries(types, zones, fallback);
  const after = [...original, ...added];
  const write = !sameRequirements(before, after);

  const changes: NodePoolEditChange[] = [];
  if (types.some((t) => !prev.types.has(t)) || zones.some((z) => !prev.zones.has(z))) changes.push('narrow');
  if (!fallback && ([...prev.types].some((t) => !types.includes(t)) || [...prev.zones].some((z) => !zones.includes(z)))) changes.push('restore');
  if (fallback && !prev.fallback) changes.push('fallback-to-on-demand');
  if (!fallback && prev.fallback) changes.push('return-to-spot');
  if (foreignEdit && write) changes.push('replan-after-foreign-edit');
  const fallbackSince = fallback ? (prev.fallback ? (record?.fallbackSince ?? input.now) : input.now) : null;
  const returnToSpot = !fallback && prev.fallback ? { fallbackSince: record?.fallbackSince ?? null } : null;

  const afterOfferings = admitted(after, offerings, keys);
  const parts: string[] = [];
  if (exclusions.length > 0) parts.push(exclusions.map((e) => e.sentence).join(' '));
  if (fallback) parts.push(stayReason ?? `Every Spot offering of ${input.nodePool} is avoided: it launches on-demand until one recovers.`);
  if (returnToSpot) parts.push(`A Spot offering recovered: ${input.nodePool} returns to Spot, and its on-demand nodes are replaced gradually.`);
  if (heldBack.length > 0) parts.push(heldBack.map((h) => h.sentence).join(' '));
  if (foreignEdit) parts.push(`${input.nodePool} was changed by someone else since steering last wrote it; their change is kept and the plan made again on it.`);
  if (avoided.length === 0) parts.push(record && record.added.length > 0 ? `No pool of ${input.nodePool} is avoided: its requirements are restored as they were.` : `No pool of ${input.nodePool} is avoided.`);
  if (!write) parts.push('Nothing to change.');

  return {
    nodePool: input.nodePool,
    write,
    before,
    after,
    original,
    added,
    exclusions,
    fallback,
    fallbackSince,
    returnToSpot,
    changes,
    foreignEdit,
    heldBack,
    offerings: { before: counts(admitted(before, offerings, keys)), after: counts(afterOfferings), original: counts(owned) },
    sentence: parts.join(' '),
  };
}

const priceOf = (o: Offering, health: ReadonlyMap<string, PoolHealthView>): number | null => {
  const p = health.get(poolKeyOf(o))?.spotPerHour;
  return typeof p === 'number' && Number.isFinite(p) ? p : null;
};

/**
 * cheapestPrices — the prices of the `n` cheapest priced Spot offerings among those given, ascending: what
 * {@link SteeringRails.keepCheapest} keeps. Offerings without a price are never among them.
 */
export function cheapestPrices(spot: readonly Offering[], health: ReadonlyMap<string, PoolHealthView>, n: number): number[] {
  return spot
    .map((o) => priceOf(o, health))
    .filter((p): p is number => p !== null)
    .sort((a, b) => a - b)
    .slice(0, Math.max(0, n));
}

/**
 * raisesPrices — whether the cheapest prices left (`after`, ascending) are dearer than `before` at some rank both
 * have: an offering among the cheapest is gone with nothing as cheap to take its place. Fewer left is not a rise
 * (Karpenter then launches into those left, at their prices).
 */
export function raisesPrices(before: readonly number[], after: readonly number[]): boolean {
  return after.some((p, i) => i < before.length && p > before[i]! + 1e-12);
}

const money = (x: number) => `$${x.toFixed(x < 1 ? 3 : 2)}/h`;

interface CoverInput {
  nodePool: string;
  owned: Offering[];
  original: Requirement[];
  isAvoided: (o: Offering) => boolean;
  health: ReadonlyMap<string, PoolHealthView>;
  rails: SteeringRails;
  prev: { types: Set<string>; zones: Set<string> };
  /** The prices of the cheapest Spot offerings that are not avoided, ascending: no exclusion may raise them. */
  cheapest: readonly number[];
}

/**
 * coverAvoided — the greedy choice of exclusions keeping every avoided Spot offering out of a NodePool: at each step
 * the instance type or zone losing the fewest offerings that are not avoided per avoided one covered, among those
 * that keep a Spot offering that is not avoided, the owner's minValues, the cheapest offerings and the share rail.
 */
function coverAvoided({ nodePool, owned, original, isAvoided, health, rails, prev, cheapest }: CoverInput): { exclusions: Exclusion[]; heldBack: NodePoolEditPlan['heldBack'] } {
  const exclusions: Exclusion[] = [];
  const heldBack: NodePoolEditPlan['heldBack'] = [];
  const avoided = owned.filter(isAvoided);
  const removed = new Set<string>();
  let uncovered = [...avoided];
  const maxRemoved = Math.floor(rails.maxExcludedShare * owned.length + 1e-9);
  for (;;) {
    if (uncovered.length === 0) break;
    const candidates = new Map<string, { kind: ExclusionKind; value: string }>();
    for (const o of uncovered) {
      candidates.set(`t:${o.instanceType}`, { kind: 'instance-type', value: o.instanceType });
      candidates.set(`z:${o.zone}`, { kind: 'zone', value: o.zone });
    }
    const scored = [...candidates.values()].map((c) => {
      const hit = owned.filter((o) => !removed.has(offeringKey(o)) && (c.kind === 'instance-type' ? o.instanceType === c.value : o.zone === c.value));
      const covers = hit.filter(isAvoided);
      const loses = hit.length - covers.length;
      const left = owned.filter((o) => !removed.has(offeringKey(o)) && !hit.includes(o));
      const spotLeft = left.filter((o) => o.capacityType === 'spot' && !isAvoided(o));
      const raises = cheapest.length > 0 && raisesPrices(cheapest, cheapestPrices(spotLeft, health, cheapest.length));
      const takesCheap = raises ? hit.filter((o) => o.capacityType === 'spot' && !isAvoided(o) && (priceOf(o, health) ?? Infinity) <= cheapest.at(-1)!) : [];
      const problem: HeldBackReason | null = !left.some((o) => o.capacityType === 'spot' && !isAvoided(o))
        ? 'would-leave-no-spot'
        : !minValuesHeld(original, left)
          ? 'min-values'
          : raises
            ? 'launch-price-rail'
            : removed.size + hit.length > maxRemoved
              ? 'excluded-share-rail'
              : null;
      const kept = c.kind === 'instance-type' ? prev.types.has(c.value) : prev.zones.has(c.value);
      return { ...c, hit, covers, loses, problem, kept, takesCheap };
    });
    scored.sort(
      (a, b) =>
        a.loses / a.covers.length - b.loses / b.covers.length ||
        b.covers.length - a.covers.length ||
        Number(b.kept) - Number(a.kept) ||
        (a.kind === b.kind ? 0 : a.kind === 'instance-type' ? -1 : 1) ||
        a.value.localeCompare(b.value),
    );
    const best = scored.find((s) => s.problem === null);
    if (!best) {
      for (const o of uncovered) {
        const mine = scored.filter((s) => s.covers.includes(o));
        const reason = mine[0]?.problem ?? 'would-leave-no-spot';
        const cheapText = mine
          .filter((s) => s.takesCheap.length > 0)
          .map((s) => `excluding ${kindText(s.kind, s.value)} would take out ${s.takesCheap.map((x) => `${poolText(x)} (${money(priceOf(x, health)!)})`).join(', ')}`)
          .join(' and ');
        const why: Record<HeldBackReason, string> = {
          'would-leave-no-spot': `excluding it would leave ${nodePool} no Spot offering that is not avoided`,
          'min-values': `excluding it would break a minValues of ${nodePool}'s requirements`,
          'launch-price-rail': `${cheapText}, among ${nodePool}'s ${cheapest.length} cheapest Spot offerings that are not avoided, with nothing as cheap left instead — Karpenter's launches would move to dearer pools`,
          'excluded-share-rail': `excluding it would exclude more than ${pct(rails.maxExcludedShare)} of ${nodePool}'s offerings`,
          'no-on-demand': '',
        };
        heldBack.push({ pool: { instanceType: o.instanceType, zone: o.zone }, reason, sentence: `${poolText(o)} is kept: ${why[reason]}.` });
      }
      break;
    }
    for (const o of best.hit) removed.add(offeringKey(o));
    const first = best.covers[0]!;
    const otherKind: ExclusionKind = best.kind === 'instance-type' ? 'zone' : 'instance-type';
    const other = scored.find((s) => s.kind === otherKind && s.value === (otherKind === 'zone' ? first.zone : first.instanceType));
    const alternative = other ? { kind: other.kind, value: other.value, loses: other.loses, refused: other.problem } : null;
    const coverText = best.covers.map((o) => {
      const share = health.get(poolKeyOf(o))?.share;
      return `${poolText(o)}${share != null ? ` (${pct(share)} of its rebalances interrupted)` : ''}`;
    });
    const refusedText: Record<HeldBackReason, string> = {
      'would-leave-no-spot': 'leave no Spot offering that is not avoided',
      'min-values': 'break a minValues',
      'launch-price-rail': `take out ${other?.takesCheap.map(poolText).join(', ')}, among the cheapest`,
      'excluded-share-rail': `exclude more than ${pct(rails.maxExcludedShare)} of the offerings`,
      'no-on-demand': '',
    };
    const altText = alternative ? `; excluding ${kindText(alternative.kind, alternative.value)} instead would lose ${alternative.loses}${alternative.refused ? ` and ${refusedText[alternative.refused]}` : ''}` : '';
    exclusions.push({
      kind: best.kind,
      value: best.value,
      covers: best.covers.map((o) => ({ instanceType: o.instanceType, zone: o.zone })),
      loses: best.loses,
      alternative,
      sentence: `Exclude ${kindText(best.kind, best.value)}: it keeps out ${coverText.join(', ')} and loses ${best.loses} other offering${best.loses === 1 ? '' : 's'}${altText}.`,
    });
    uncovered = uncovered.filter((o) => !removed.has(offeringKey(o)));
  }
  return { exclusions, heldBack };
}
