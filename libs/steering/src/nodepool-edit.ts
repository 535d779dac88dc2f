import type { PoolRef } from './pool-health.js';
import type {
  DisruptionBudget,
  DriftForecast,
  Exclusion,
  ExclusionKind,
  HeldBack,
  HeldBackReason,
  NodePoolEditChange,
  NodePoolEditInput,
  NodePoolEditPlan,
  OfferingCounts,
  PoolHealthView,
  SteeringRails,
  SteeringRecord,
} from './nodepool-edit.types.js';
import {
  admits,
  admitted,
  CAPACITY_TYPE_KEY,
  catalogueKeys,
  INSTANCE_TYPE_KEY,
  minValuesHeld,
  offeringKey,
  sameRequirement,
  sameRequirements,
  ZONE_KEY,
  type Offering,
  type Requirement,
} from './requirements.js';
import { pct } from './stats.js';
import { poolKey } from '@nodes-manager/contracts';

export type * from './nodepool-edit.types.js';

const DAY = 24 * 3_600_000;

/** ownerBudgetsOf — the budgets read, without the entries steering added (those still there, as written). */
export function ownerBudgetsOf(budgets: readonly DisruptionBudget[], record: SteeringRecord | null): DisruptionBudget[] {
  const left = budgets.map((b) => ({ ...b, ...(b.reasons ? { reasons: [...b.reasons] } : {}) }));
  for (const a of record?.addedBudgets ?? []) {
    const i = left.findIndex((b) => sameBudget(b, a));
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}

const sameBudget = (a: DisruptionBudget, b: DisruptionBudget) =>
  a.nodes === b.nodes && (a.schedule ?? null) === (b.schedule ?? null) && (a.duration ?? null) === (b.duration ?? null) && [...(a.reasons ?? [])].sort().join(',') === [...(b.reasons ?? [])].sort().join(',');
const sameBudgets = (a: readonly DisruptionBudget[], b: readonly DisruptionBudget[]) => a.length === b.length && a.every((x, i) => sameBudget(x, b[i]!));

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
  const isAvoided = (o: Offering) => o.capacityType === 'spot' && health.get(poolKey(o))?.state === 'avoid';
  const avoided = owned.filter(isAvoided);
  const healthySpot = owned.filter((o) => o.capacityType === 'spot' && !isAvoided(o));
  // The rail keeps the cheapest prices of pools not shown risky: a cheap pool watched for its rate or share is not
  // protected blindly (it would keep taking the launches the rail protects).
  const cheapest = cheapestPrices(healthySpot.filter((o) => !health.get(poolKey(o))?.risky), health, rails.keepCheapest);
  const prev = previousExclusions(record);
  const nodes = input.nodes ?? null;
  const nodesOn = (o: Offering) => (nodes ? nodes.filter((n) => n.instanceType === o.instanceType && n.zone === o.zone && n.capacityType === o.capacityType).reduce((a, n) => a + n.count, 0) : 0);
  const spotNodes = nodes ? nodes.filter((n) => n.capacityType === 'spot').reduce((a, n) => a + n.count, 0) : null;
  const launchK = Math.max(1, rails.keepCheapest || 3);

  const exclusions: Exclusion[] = [];
  const heldBack: HeldBack[] = [];
  let fallback = false;
  let stayReason: string | null = null;
  let fallbackCost: NodePoolEditPlan['fallbackCost'] = null;
  const bare = (o: Offering, reason: HeldBackReason, sentence: string): HeldBack => ({ pool: { instanceType: o.instanceType, zone: o.zone }, reason, sentence, launchShare: 0, launchesPerDay: null, keepOut: null });

  if (avoided.length > 0 && healthySpot.length === 0) {
    if (owned.some((o) => o.capacityType === 'on-demand')) {
      // The fallback is an explicit, dearer decision: every Spot node of the NodePool drifts to on-demand.
      const od = owned.filter((o) => o.capacityType === 'on-demand').map((o) => health.get(poolKey(o))?.onDemandPerHour).filter((x): x is number => typeof x === 'number');
      const odPrice = od.length > 0 ? Math.min(...od) : null;
      const spotSpend = nodes ? nodes.filter((n) => n.capacityType === 'spot').reduce((a, n) => a + n.count * (health.get(poolKey(n))?.spotPerHour ?? 0), 0) : null;
      const extra = spotNodes !== null && odPrice !== null && spotSpend !== null ? spotNodes * odPrice - spotSpend : null;
      const approved = input.fallbackApproved === true;
      const already = prev.fallback;
      fallbackCost = already ? null : { spotNodes: spotNodes ?? 0, extraPerHour: extra, approved };
      if (!already && rails.maxFallbackExtraPerHour !== undefined && extra !== null && extra > rails.maxFallbackExtraPerHour && !approved) {
        for (const o of avoided) {
          heldBack.push(
            bare(
              o,
              'fallback-cost',
              `${poolText(o)} is kept: every Spot offering of ${input.nodePool} is avoided, and falling back to on-demand would replace ${spotNodes} Spot node${spotNodes === 1 ? '' : 's'} with on-demand at ${money(extra)} more, above the ${money(rails.maxFallbackExtraPerHour)} allowed without an approval.`,
            ),
          );
        }
      } else fallback = true;
    } else {
      for (const o of avoided) heldBack.push(bare(o, 'no-on-demand', `${poolText(o)} is kept: every Spot offering of ${input.nodePool} is avoided and it does not allow on-demand.`));
    }
  } else if (avoided.length > 0) {
    const driftCap = Math.min(rails.maxDriftPerNodePool ?? Infinity, rails.driftLeft ?? Infinity);
    const cover = coverAvoided({ nodePool: input.nodePool, owned, original, isAvoided, health, rails, prev, cheapest, nodesOn, spotNodes, driftCap });
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
  const requirementsChange = !sameRequirements(before, after);

  const changes: NodePoolEditChange[] = [];
  if (types.some((t) => !prev.types.has(t)) || zones.some((z) => !prev.zones.has(z))) changes.push('narrow');
  if (!fallback && ([...prev.types].some((t) => !types.includes(t)) || [...prev.zones].some((z) => !zones.includes(z)))) changes.push('restore');
  if (fallback && !prev.fallback) changes.push('fallback-to-on-demand');
  if (!fallback && prev.fallback) changes.push('return-to-spot');
  if (foreignEdit && requirementsChange) changes.push('replan-after-foreign-edit');
  const fallbackSince = fallback ? (prev.fallback ? (record?.fallbackSince ?? input.now) : input.now) : null;
  const returnToSpot = !fallback && prev.fallback ? { fallbackSince: record?.fallbackSince ?? null } : null;

  const afterOfferings = admitted(after, offerings, keys);

  // What a held-back pool still takes, and what keeping it out would cost (set by coverAvoided where it knew).
  const afterSpot = afterOfferings.filter((o) => o.capacityType === 'spot').sort((a, b) => (priceOf(a, health) ?? Infinity) - (priceOf(b, health) ?? Infinity));
  const launchers = afterSpot.slice(0, Math.min(launchK, afterSpot.length));
  for (const h of heldBack) {
    const among = launchers.some((o) => o.instanceType === h.pool.instanceType && o.zone === h.pool.zone);
    h.launchShare = among ? 1 / launchers.length : 0;
    h.launchesPerDay = input.launchesPerDay !== undefined ? Math.round(h.launchShare * input.launchesPerDay * 10) / 10 : null;
    const takes = among ? `It still takes about 1 in ${launchers.length} of ${input.nodePool}'s Spot launches${h.launchesPerDay !== null ? ` (about ${h.launchesPerDay} a day)` : ''}` : `It is not among the ${launchers.length} cheapest offerings Karpenter launches into`;
    const cost = h.keepOut
      ? `; keeping it out by excluding ${kindText(h.keepOut.kind, h.keepOut.value)} would cost ${h.keepOut.extraPerHour !== null ? `${money(h.keepOut.extraPerHour)} more` : 'an unknown amount'} and drift ${h.keepOut.drifts} node${h.keepOut.drifts === 1 ? '' : 's'}`
      : '';
    // Only a caller that knows the NodePool's nodes or launches gets the figures (the sentence stays as it was otherwise).
    if (nodes || input.launchesPerDay !== undefined) h.sentence = `${h.sentence} ${takes}${cost}.`;
  }

  // The drift forecast: every running node whose labels `after` no longer admits is drifted by Karpenter.
  let drift: DriftForecast | null = null;
  if (nodes) {
    const byPool: DriftForecast['byPool'] = [];
    let before$ = 0;
    let priced = true;
    for (const n of nodes) {
      if (n.count <= 0) continue;
      const o: Offering = { instanceType: n.instanceType, zone: n.zone, capacityType: n.capacityType, labels: offerings.find((x) => x.instanceType === n.instanceType)?.labels ?? {} };
      if (admits(after, o, keys)) continue;
      const avoidedPool = n.capacityType === 'spot' && health.get(poolKey(n))?.state === 'avoid';
      byPool.push({ pool: { instanceType: n.instanceType, zone: n.zone }, capacityType: n.capacityType, nodes: n.count, avoided: avoidedPool && !fallback });
      const p = n.capacityType === 'spot' ? health.get(poolKey(n))?.spotPerHour : health.get(poolKey(n))?.onDemandPerHour;
      if (typeof p === 'number') before$ += p * n.count;
      else priced = false;
    }
    const total = byPool.reduce((a, b) => a + b.nodes, 0);
    const onPurpose = byPool.filter((b) => b.avoided).reduce((a, b) => a + b.nodes, 0);
    // Replacements go where Karpenter launches after the write: the mean of the cheapest admitted (Spot, else on-demand).
    const spotPrices = launchers.map((o) => priceOf(o, health)).filter((x): x is number => x !== null);
    const odPrices = afterOfferings.filter((o) => o.capacityType === 'on-demand').map((o) => health.get(poolKey(o))?.onDemandPerHour).filter((x): x is number => typeof x === 'number');
    const unit = spotPrices.length > 0 ? spotPrices.reduce((a, b) => a + b, 0) / spotPrices.length : odPrices.length > 0 ? Math.min(...odPrices) : null;
    const after$ = unit !== null ? unit * total : null;
    const perPool = byPool.map((b) => `${b.nodes} in ${poolText(b.pool)}${b.capacityType === 'on-demand' ? ' (on-demand)' : ''}${b.avoided ? '' : ' (collateral)'}`).join(', ');
    drift = {
      total,
      byPool,
      onPurpose,
      collateral: total - onPurpose,
      usdPerHourBefore: priced ? Math.round(before$ * 10_000) / 10_000 : null,
      usdPerHourAfter: after$ !== null ? Math.round(after$ * 10_000) / 10_000 : null,
      sentence:
        total === 0
          ? 'The write drifts no running node.'
          : rails.driftBudgetNodes === '0' && added.length > 0
            ? `The write drifts ${total} running node${total === 1 ? '' : 's'} (${perPool}); steering's Drifted budget of 0 holds Karpenter's replacement of them while its entries stand — nodes of avoided pools are moved by steering where it pays${priced && after$ !== null ? ` (${money(before$)} now, about ${money(after$)} after)` : ''}.`
            : `The write drifts ${total} running node${total === 1 ? '' : 's'} (${perPool}): Karpenter replaces each, launching first, then draining — ${total} disruption${total === 1 ? '' : 's'}${priced && after$ !== null ? `, ${money(before$)} now, about ${money(after$)} after` : ''}.`,
    };
  }

  // Steering's own pacing of the drift it causes: a `reasons: [Drifted]` budget entry while its entries stand.
  const ownerBudgets = input.budgets !== undefined && input.budgets !== null ? ownerBudgetsOf(input.budgets, record) : null;
  // A NodePool with no budgets has Karpenter's default (one of `nodes: 10%` for every reason); writing a list replaces
  // it, so steering then writes the default too — and removes both with its entries.
  const addedBudgets: DisruptionBudget[] =
    ownerBudgets !== null && added.length > 0 && rails.driftBudgetNodes ? [...(ownerBudgets.length === 0 ? [{ nodes: '10%' }] : []), { nodes: rails.driftBudgetNodes, reasons: ['Drifted'] }] : [];
  const budgetsAfter = ownerBudgets !== null ? [...ownerBudgets, ...addedBudgets] : null;
  const budgetsChange = budgetsAfter !== null && !sameBudgets(input.budgets ?? [], budgetsAfter);

  let write = requirementsChange || budgetsChange;
  let held: NodePoolEditPlan['held'] = null;
  const writesToday = (input.recentWrites ?? []).filter((d) => input.now.getTime() - d.getTime() < DAY && d.getTime() <= input.now.getTime()).length;
  if (write && rails.maxWritesPerDay !== undefined && writesToday >= rails.maxWritesPerDay) {
    write = false;
    held = { reason: 'write-rate-rail', sentence: `Held: ${input.nodePool} was written ${writesToday} time${writesToday === 1 ? '' : 's'} by steering in the last 24 h, the most allowed (${rails.maxWritesPerDay}); the plan is made again next pass.` };
  }
  const parts: string[] = [];
  if (exclusions.length > 0) parts.push(exclusions.map((e) => e.sentence).join(' '));
  if (fallback) parts.push(stayReason ?? `Every Spot offering of ${input.nodePool} is avoided: it launches on-demand until one recovers.`);
  if (returnToSpot) parts.push(`A Spot offering recovered: ${input.nodePool} returns to Spot, and its on-demand nodes are replaced gradually.`);
  if (fallbackCost) parts.push(`The fallback replaces ${fallbackCost.spotNodes} Spot node${fallbackCost.spotNodes === 1 ? '' : 's'} with on-demand${fallbackCost.extraPerHour !== null ? ` at ${money(fallbackCost.extraPerHour)} more` : ''}${fallbackCost.approved ? ' (approved)' : ''}.`);
  if (heldBack.length > 0) parts.push(heldBack.map((h) => h.sentence).join(' '));
  if (drift && (requirementsChange || drift.total > 0)) parts.push(drift.sentence);
  if (addedBudgets.length > 0 && budgetsChange) parts.push(`Steering paces the drift it causes with a budget of ${rails.driftBudgetNodes} for reason Drifted, removed with its entries.`);
  if (held) parts.push(held.sentence);
  if (foreignEdit) parts.push(`${input.nodePool} was changed by someone else since steering last wrote it; their change is kept and the plan made again on it.`);
  if (avoided.length === 0) parts.push(record && record.added.length > 0 ? `No pool of ${input.nodePool} is avoided: its requirements are restored as they were.` : `No pool of ${input.nodePool} is avoided.`);
  if (!requirementsChange && !budgetsChange) parts.push('Nothing to change.');

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
    drift,
    fallbackCost,
    budgetsAfter,
    addedBudgets,
    held,
    sentence: parts.join(' '),
  };
}

const priceOf = (o: Offering, health: ReadonlyMap<string, PoolHealthView>): number | null => {
  const p = health.get(poolKey(o))?.spotPerHour;
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
  /** Running nodes on an offering (0 without a node count). */
  nodesOn: (o: Offering) => number;
  spotNodes: number | null;
  /** The most nodes the exclusions together may drift (the drift rails; Infinity: no cap). */
  driftCap: number;
}

/**
 * coverAvoided — the greedy choice of exclusions keeping every avoided Spot offering out of a NodePool: at each step
 * the instance type or zone losing the fewest offerings that are not avoided per avoided one covered, among those
 * that keep a Spot offering that is not avoided, the owner's minValues, the cheapest offerings and the share rail.
 */
function coverAvoided({ nodePool, owned, original, isAvoided, health, rails, prev, cheapest, nodesOn, spotNodes, driftCap }: CoverInput): { exclusions: Exclusion[]; heldBack: HeldBack[] } {
  const exclusions: Exclusion[] = [];
  const heldBack: HeldBack[] = [];
  let drifted = 0;
  const mean = (xs: readonly number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
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
      const kept = c.kind === 'instance-type' ? prev.types.has(c.value) : prev.zones.has(c.value);
      const cheapAfter = cheapestPrices(spotLeft.filter((o) => !health.get(poolKey(o))?.risky), health, cheapest.length);
      // Hysteresis: an exclusion already written may raise the cheapest prices by up to priceHysteresis; a new one by none.
      const tolerance = kept ? (rails.priceHysteresis ?? 0) : 0;
      const raises = cheapest.length > 0 && raisesPrices(cheapest.map((p) => p * (1 + tolerance)), cheapAfter);
      const takesCheap = raises ? hit.filter((o) => o.capacityType === 'spot' && !isAvoided(o) && (priceOf(o, health) ?? Infinity) <= cheapest.at(-1)!) : [];
      const onPurpose = covers.reduce((a, o) => a + nodesOn(o), 0);
      const collateral = hit.filter((o) => !isAvoided(o)).reduce((a, o) => a + nodesOn(o), 0);
      const extraPerHour = spotNodes !== null && cheapest.length > 0 && cheapAfter.length > 0 ? Math.max(0, spotNodes * (mean(cheapAfter) - mean(cheapest))) : null;
      const problem: HeldBackReason | null = !left.some((o) => o.capacityType === 'spot' && !isAvoided(o))
        ? 'would-leave-no-spot'
        : !minValuesHeld(original, left)
          ? 'min-values'
          : raises
            ? 'launch-price-rail'
            : removed.size + hit.length > maxRemoved
              ? 'excluded-share-rail'
              : drifted + onPurpose + collateral > driftCap
                ? 'drift-rail'
                : null;
      return { ...c, hit, covers, loses, problem, kept, takesCheap, onPurpose, collateral, extraPerHour };
    });
    // The best trade: the fewest healthy nodes moved per avoided pool kept out, then the fewest offerings lost.
    scored.sort(
      (a, b) =>
        a.collateral / a.covers.length - b.collateral / b.covers.length ||
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
          'drift-rail': `excluding it would drift ${Math.min(...mine.map((s) => s.onPurpose + s.collateral))} running nodes, more than the ${Number.isFinite(driftCap) ? driftCap - drifted : 0} the drift rails allow now`,
          'fallback-cost': '',
        };
        const way = [...mine].sort((a, b) => (a.extraPerHour ?? Infinity) - (b.extraPerHour ?? Infinity) || a.onPurpose + a.collateral - (b.onPurpose + b.collateral))[0];
        heldBack.push({
          pool: { instanceType: o.instanceType, zone: o.zone },
          reason,
          sentence: `${poolText(o)} is kept: ${why[reason]}.`,
          launchShare: 0,
          launchesPerDay: null,
          keepOut: way ? { kind: way.kind, value: way.value, extraPerHour: way.extraPerHour !== null ? Math.round(way.extraPerHour * 10_000) / 10_000 : null, drifts: way.onPurpose + way.collateral } : null,
        });
      }
      break;
    }
    for (const o of best.hit) removed.add(offeringKey(o));
    drifted += best.onPurpose + best.collateral;
    const first = best.covers[0]!;
    const otherKind: ExclusionKind = best.kind === 'instance-type' ? 'zone' : 'instance-type';
    const other = scored.find((s) => s.kind === otherKind && s.value === (otherKind === 'zone' ? first.zone : first.instanceType));
    const alternative = other ? { kind: other.kind, value: other.value, loses: other.loses, refused: other.problem } : null;
    const coverText = best.covers.map((o) => {
      const share = health.get(poolKey(o))?.share;
      return `${poolText(o)}${share != null ? ` (${pct(share)} of its rebalances interrupted)` : ''}`;
    });
    const refusedText: Record<HeldBackReason, string> = {
      'would-leave-no-spot': 'leave no Spot offering that is not avoided',
      'min-values': 'break a minValues',
      'launch-price-rail': `take out ${other?.takesCheap.map(poolText).join(', ')}, among the cheapest`,
      'excluded-share-rail': `exclude more than ${pct(rails.maxExcludedShare)} of the offerings`,
      'no-on-demand': '',
      'drift-rail': 'drift more nodes than the drift rails allow',
      'fallback-cost': '',
    };
    const altText = alternative ? `; excluding ${kindText(alternative.kind, alternative.value)} instead would lose ${alternative.loses}${alternative.refused ? ` and ${refusedText[alternative.refused]}` : ''}` : '';
    exclusions.push({
      kind: best.kind,
      value: best.value,
      covers: best.covers.map((o) => ({ instanceType: o.instanceType, zone: o.zone })),
      loses: best.loses,
      alternative,
      drifts: { onPurpose: best.onPurpose, collateral: best.collateral },
      sentence: `Exclude ${kindText(best.kind, best.value)}: it keeps out ${coverText.join(', ')} and loses ${best.loses} other offering${best.loses === 1 ? '' : 's'}${altText}.`,
    });
    uncovered = uncovered.filter((o) => !removed.has(offeringKey(o)));
  }
  return { exclusions, heldBack };
}
