/**
 * Contracts of Spot interruptions — every one, whether a rebalance recommendation came first or not (owned by the
 * uncordon service) — and of node-hours per pool (owned by node-sync, from its record of when each node came and
 * went). Together they make a pool's interruptions per 1,000 node-hours. Data only. See docs/rebalance-ledger.md.
 */
import type { InterruptionSource, LedgerNodeIdentity, RebalanceEvidence } from './rebalance.js';

/** PoolHoursBucket — node-hours of one pool in one clock hour (`from`: the hour's start, ISO 8601). */
export interface PoolHoursBucket {
  readonly from: string;
  readonly nodeHours: number;
}

/** PoolNodeHours — node-hours of one pool (instance type × zone × capacity type) over a window. */
export interface PoolNodeHours {
  readonly instanceType: string | null;
  readonly zone: string | null;
  readonly capacityType: string | null;
  /** Node objects that lived in the pool at some time in the window. */
  readonly nodes: number;
  readonly nodeHours: number;
  /** Per clock hour, when asked with `hourly` (hours with node time only). */
  readonly hours?: readonly PoolHoursBucket[];
}

export interface NodeHoursQuery {
  /** ISO 8601: the window's start. */
  readonly from: string;
  /** ISO 8601: its end (default now). */
  readonly to?: string;
  /** `spot` or `on-demand`: only that capacity type. */
  readonly capacityType?: string;
  /** Also per clock hour. */
  readonly hourly?: boolean;
}

export interface NodeHoursReply {
  readonly from: string;
  readonly to: string;
  readonly pools: readonly PoolNodeHours[];
}

/** InterruptionView — one Spot interruption of one Node object, whatever came before it. Times ISO 8601. */
export interface InterruptionView extends LedgerNodeIdentity {
  readonly interruptedAt: string;
  /** The first signal (its time is the interruption's). */
  readonly source: InterruptionSource;
  /** The ledger row of the rebalance recommendation it followed, if one came first; null: no recommendation seen. */
  readonly rebalanceId: string | null;
  readonly evidence: readonly RebalanceEvidence[];
}

export interface InterruptionsListQuery {
  /** ISO 8601: interruptions at or after (default: the last REBALANCE_FIGURES_DAYS). */
  readonly from?: string;
  /** ISO 8601: interruptions before. */
  readonly to?: string;
  readonly instanceType?: string;
  readonly zone?: string;
}

export interface InterruptionsListReply {
  readonly from: string;
  readonly to: string;
  /** Oldest first. */
  readonly items: readonly InterruptionView[];
  /** More than the 10,000 returned happened in the window: narrow it. */
  readonly truncated: boolean;
}

/** InterruptionRate — interruptions per 1,000 node-hours of a group of Spot nodes, with its exact Poisson interval. */
export interface InterruptionRate {
  readonly interruptions: number;
  /** Of them, those no rebalance recommendation came before. */
  readonly withoutRecommendation: number;
  readonly nodeHours: number;
  readonly nodes: number;
  /** interruptions / nodeHours × 1,000; null with no node-hours. */
  readonly per1000NodeHours: number | null;
  /** 95% exact (Garwood) Poisson interval of the rate; null with no node-hours. */
  readonly interval95: readonly [number, number] | null;
}

export interface PoolInterruptionRate extends InterruptionRate {
  readonly instanceType: string | null;
  readonly zone: string | null;
}

export interface InterruptionRatesQuery {
  readonly from?: string;
  readonly to?: string;
}

export interface InterruptionRates {
  readonly from: string;
  readonly to: string;
  /** Whether node-sync answered with its node-hours; without them the counts stand and the rates are null. */
  readonly nodeHours: { readonly available: boolean; readonly detail?: string };
  /** Every Spot pool with node-hours or interruptions in the window. */
  readonly cluster: InterruptionRate;
  readonly byPool: readonly PoolInterruptionRate[];
}
