import { Rng } from '../fleet/rng.js';
import type { Ec2Sim } from '../ec2/ec2-sim.js';
import type { KubeSim } from '../kube/kube-sim.js';

/**
 * How an interruption shows itself: NTH's `spot-itn` taint, NTH's `SpotInterruption` Event, the Node going away
 * (`removeAfterMs` after the notice, as Spot's two-minute warning ends), and EC2's state reason
 * `Server.SpotInstanceTermination` on the instance (set when the node goes; needs an Ec2Sim that knows the instance).
 */
export type InterruptionEvidence = 'taint' | 'event' | 'removal' | 'ec2';

/** LeadTimeDistribution — rebalance → interruption: log-normal (median, σ of the log) or fixed, clamped to [min, max]. */
export type LeadTimeDistribution =
  | { readonly kind: 'lognormal'; readonly medianMinutes: number; readonly sigma: number; readonly minMinutes?: number; readonly maxMinutes?: number }
  | { readonly kind: 'fixed'; readonly minutes: number };

export interface RebalancePlayoutOptions {
  /** Same seed, same outcomes. Default 1. */
  readonly seed?: number;
  /** The probability that a rebalance is followed by an interruption, 0–1. */
  readonly followUpRate: number;
  readonly leadTime: LeadTimeDistribution;
  /** Which evidence each interruption leaves, by weight. Default: all four. */
  readonly evidence?: ReadonlyArray<{ readonly weight: number; readonly kinds: readonly InterruptionEvidence[] }>;
  /** Notice → the Node goes (and EC2 terminates the instance). Default 2 minutes. */
  readonly removeAfterMs?: number;
  /** NTH's `RebalanceRecommendation` Event with the cordon. Default true. */
  readonly rebalanceEvent?: boolean;
}

/** RebalanceTarget — a node to rebalance, when, and its instance (for the EC2 evidence). */
export interface RebalanceTarget {
  readonly node: string;
  readonly at: Date;
  readonly instanceId?: string;
}

/** PlannedRebalance — what the play-out will do to one node: the truth a measurement can be checked against. */
export interface PlannedRebalance extends RebalanceTarget {
  readonly interruption?: { readonly at: Date; readonly leadMs: number; readonly evidence: readonly InterruptionEvidence[] };
}

/** sampleLeadMinutes — one draw: median · e^(σ·z), z standard normal (Box–Muller), clamped. */
export function sampleLeadMinutes(rng: Rng, d: LeadTimeDistribution): number {
  if (d.kind === 'fixed') return d.minutes;
  const u1 = Math.max(rng.next(), Number.MIN_VALUE);
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng.next());
  const x = d.medianMinutes * Math.exp(d.sigma * z);
  return Math.min(d.maxMinutes ?? Number.POSITIVE_INFINITY, Math.max(d.minMinutes ?? 0, x));
}

/** planRebalances — decides, seeded, which rebalances are followed by an interruption, when, and with what evidence. */
export function planRebalances(targets: readonly RebalanceTarget[], opts: RebalancePlayoutOptions): PlannedRebalance[] {
  const rng = new Rng(opts.seed ?? 1);
  const mix = (opts.evidence ?? [{ weight: 1, kinds: ['taint', 'event', 'removal', 'ec2'] as const }]).map((e) => [e.kinds, e.weight] as const);
  return targets.map((t) => {
    const follow = rng.chance(opts.followUpRate);
    const lead = sampleLeadMinutes(rng, opts.leadTime);
    const kinds = rng.weighted(mix);
    if (!follow) return { ...t };
    const leadMs = Math.round(lead * 60_000);
    return { ...t, interruption: { at: new Date(t.at.getTime() + leadMs), leadMs, evidence: [...kinds] } };
  });
}

interface Action {
  readonly at: number;
  readonly seq: number;
  readonly run: () => void;
}

/**
 * RebalancePlayout — plays a plan out against the simulators: at each rebalance NTH's cordon with its rebalance taint
 * (and Event); at each interruption the evidence the plan chose. Driven by {@link advanceTo}, so a fake clock or a
 * compressed demo clock decides how fast; every simulator write carries the planned time.
 */
export class RebalancePlayout {
  private readonly actions: Action[] = [];
  private applied = 0;

  constructor(
    private readonly kube: KubeSim,
    readonly plan: readonly PlannedRebalance[],
    private readonly opts: Pick<RebalancePlayoutOptions, 'removeAfterMs' | 'rebalanceEvent'> & { ec2?: Ec2Sim; onError?: (err: Error) => void } = {},
  ) {
    let seq = 0;
    const add = (at: Date, run: () => void) => this.actions.push({ at: at.getTime(), seq: seq++, run });
    const removeAfter = opts.removeAfterMs ?? 120_000;
    for (const p of plan) {
      add(p.at, () => {
        this.kube.scenario.cordonAsNth(p.node, { taint: true, at: p.at });
        if (opts.rebalanceEvent ?? true) this.kube.scenario.nodeEvent(p.node, 'RebalanceRecommendation', 'Rebalance recommendation received. Instance will be cordoned', { at: p.at });
      });
      const i = p.interruption;
      if (!i) continue;
      if (i.evidence.includes('taint')) add(i.at, () => this.kube.scenario.interruptAsNth(p.node, { at: i.at }));
      if (i.evidence.includes('event')) add(i.at, () => this.kube.scenario.nodeEvent(p.node, 'SpotInterruption', 'Spot Interruption notice for instance was sent', { at: i.at }));
      const gone = new Date(i.at.getTime() + removeAfter);
      if (i.evidence.includes('ec2') && p.instanceId && opts.ec2) add(gone, () => opts.ec2!.interruptSpot(p.instanceId!));
      if (i.evidence.includes('removal')) add(gone, () => this.kube.scenario.deleteNode(p.node));
    }
    this.actions.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }

  /** advanceTo — applies every action due at or before `now`, in order; returns how many it applied. */
  advanceTo(now: Date): number {
    let n = 0;
    while (this.applied < this.actions.length && this.actions[this.applied]!.at <= now.getTime()) {
      const a = this.actions[this.applied++]!;
      try {
        a.run();
      } catch (err) {
        // A node someone else removed meanwhile: the play-out goes on.
        this.opts.onError?.(err as Error);
      }
      n++;
    }
    return n;
  }

  /** The time of the next action, or undefined when all are done. */
  get nextAt(): Date | undefined {
    const a = this.actions[this.applied];
    return a ? new Date(a.at) : undefined;
  }

  get done(): boolean {
    return this.applied >= this.actions.length;
  }
}
