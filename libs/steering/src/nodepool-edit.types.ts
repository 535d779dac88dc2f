// The shapes of a NodePool edit plan (docs/steering.md#the-edit): what the planner reads and what it answers.
import type { PoolHealthState, PoolRef } from './pool-health.js';
import type { CapacityType, Offering, Requirement } from './requirements.js';
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
  /** The disruption budget entries steering added (its `reasons: [Drifted]` pacing), undone with the rest. */
  addedBudgets?: DisruptionBudget[];
}

/** DisruptionBudget — one entry of a NodePool's `spec.disruption.budgets` (Karpenter v1). */
export interface DisruptionBudget {
  nodes: string;
  reasons?: string[];
  schedule?: string;
  duration?: string;
}

/** NodeCount — running nodes of a NodePool on one offering. */
export interface NodeCount {
  instanceType: string;
  zone: string;
  capacityType: CapacityType;
  count: number;
}

/** DriftForecast — the running nodes a write would drift (Karpenter replaces them: launch first, then drain), and at what price. */
export interface DriftForecast {
  total: number;
  /** Per pool and capacity type: nodes whose labels the new requirements no longer admit; `avoided`: moved off an avoided pool on purpose. */
  byPool: Array<{ pool: PoolRef; capacityType: CapacityType; nodes: number; avoided: boolean }>;
  onPurpose: number;
  collateral: number;
  /** What the drifted nodes cost per hour now, and replaced where Karpenter would launch them after the write (USD). */
  usdPerHourBefore: number | null;
  usdPerHourAfter: number | null;
  sentence: string;
}

/**
 * PoolHealthView — what the planner needs of a pool: its state, for sentences its share, and its Spot price (USD per
 * hour; what Karpenter ranks offerings by, so what tells the cheapest offerings apart — see SteeringRails.keepCheapest).
 */
export interface PoolHealthView {
  state: PoolHealthState;
  share?: number | null;
  spotPerHour?: number | null;
  onDemandPerHour?: number | null;
  /** Not avoided, but its own figures say it may be bad (watched for its rate or share): the cheapest-prices rail does not keep it. */
  risky?: boolean;
  /** Interruptions per 1,000 node-hours over the window, when known. */
  ratePer1000?: number | null;
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
  /** At most this many writes to one NodePool in 24 h; a write beyond is held (`write-rate-rail`). Unset: no cap. */
  maxWritesPerDay?: number;
  /**
   * Hysteresis on the cheapest-prices rail: an exclusion already written stays while the cheapest prices rise by at
   * most this fraction; a new one must raise none. A price step then cannot flip a plan back and forth. Unset: 0.
   */
  priceHysteresis?: number;
  /** At most this many running nodes drifted by one NodePool's write; exclusions beyond are held (`drift-rail`). Unset: no cap. */
  maxDriftPerNodePool?: number;
  /** What is left of the fleet-wide hourly drift rail for this write (steerFleet fills it in). Unset: no cap. */
  driftLeft?: number;
  /** The on-demand fallback is held (`fallback-cost`) when it would cost more than this per hour, unless approved. Unset: no cap. */
  maxFallbackExtraPerHour?: number;
  /** The `nodes` of steering's `reasons: [Drifted]` budget entry while its entries stand ("10%", "2"); null or unset: none. */
  driftBudgetNodes?: string | null;
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
  /** The NodePool's running nodes by offering: what a write would drift. Unset: no forecast, no drift rail. */
  nodes?: readonly NodeCount[];
  /** The NodePool's `spec.disruption.budgets` as read (unset: steering leaves the budgets alone). */
  budgets?: readonly DisruptionBudget[] | null;
  /** When steering wrote this NodePool lately (the daily write rail counts the last 24 h). */
  recentWrites?: readonly Date[];
  /** Launches of the NodePool per day lately: a held-back pool says how many of them it still takes. */
  launchesPerDay?: number;
  /** An operator approved the on-demand fallback's extra cost. */
  fallbackApproved?: boolean;
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
  /** Running nodes it drifts: in the avoided pools it covers, and elsewhere (collateral). */
  drifts: { onPurpose: number; collateral: number };
  sentence: string;
}

export type HeldBackReason = 'would-leave-no-spot' | 'min-values' | 'launch-price-rail' | 'excluded-share-rail' | 'no-on-demand' | 'drift-rail' | 'fallback-cost';

/** HeldBack — an avoided pool a rail keeps in the NodePool, what it still takes and what keeping it out would cost. */
export interface HeldBack {
  pool: PoolRef;
  reason: HeldBackReason;
  sentence: string;
  /** Its expected share of the NodePool's Spot launches (1/k among the k cheapest admitted, else 0), and per day when launches are known. */
  launchShare: number;
  launchesPerDay: number | null;
  /** The cheapest way to keep it out: the exclusion, its extra cost per hour on the NodePool's Spot nodes and the nodes it would drift. */
  keepOut: { kind: ExclusionKind; value: string; extraPerHour: number | null; drifts: number } | null;
}

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
  heldBack: HeldBack[];
  offerings: { before: OfferingCounts; after: OfferingCounts; original: OfferingCounts };
  /** The running nodes the write drifts (null without `nodes`). */
  drift: DriftForecast | null;
  /** The on-demand fallback's price: Spot nodes it replaces with on-demand and the extra per hour (null when not falling back now). */
  fallbackCost: { spotNodes: number; extraPerHour: number | null; approved: boolean } | null;
  /** The disruption budgets to write (the owner's, plus steering's Drifted entry while its entries stand); null: left alone. */
  budgetsAfter: DisruptionBudget[] | null;
  addedBudgets: DisruptionBudget[];
  /** A write wanted but held by a rail this pass (`write` is then false; `after` is what it wants). */
  held: { reason: 'write-rate-rail'; sentence: string } | null;
  sentence: string;
}

