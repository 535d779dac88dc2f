import { planNodePoolEdit, type NodePoolEditPlan, type PoolHealthView, type SteeringRecord } from './nodepool-edit.js';
import type { PoolHealthConfig } from './pool-health-config.js';
import { decidePoolHealth, type PoolHealth, type PoolHealthPrevious, type PoolPrice, type PoolSample } from './pool-health.js';
import { limitAvoidEntries } from './rails.js';
import { poolKeyOf, type Offering, type Requirement } from './requirements.js';

/** FleetRails — the rails of a steering pass (docs/steering.md#the-rails). */
export interface FleetRails {
  maxAvoidPerHour: number;
  maxExcludedShare: number;
  /** The cheapest Spot offerings of a NodePool that are not avoided, kept whatever is avoided (SteeringRails.keepCheapest). */
  keepCheapest: number;
}

export interface FleetSteeringInput {
  now: Date;
  /** Ledger samples by pool (`instanceType/zone`). */
  samples: ReadonlyMap<string, readonly PoolSample[]>;
  prices: ReadonlyMap<string, PoolPrice>;
  previous: ReadonlyMap<string, PoolHealthPrevious>;
  /** When pools entered `avoid` lately (the hourly rail counts those of the last hour). */
  recentAvoidEntries: readonly Date[];
  nodePools: ReadonlyArray<{ name: string; requirements: readonly Requirement[]; record: SteeringRecord | null }>;
  offerings: readonly Offering[];
  config: PoolHealthConfig;
  rails: FleetRails;
}

export interface FleetSteering {
  health: PoolHealth[];
  plans: NodePoolEditPlan[];
}

/**
 * steerFleet — one steering pass, pure: every pool's health (each pool the ledger, the prices or a previous
 * decision knows), the hourly rail on `avoid`, then every NodePool's edit on that health. What the service then
 * does with it — nothing (`off`), record it (`plan`), or write it through approvals (`execute`) — is not decided here.
 */
export function steerFleet(input: FleetSteeringInput): FleetSteering {
  const keys = new Set([...input.samples.keys(), ...input.prices.keys(), ...input.previous.keys()]);
  const decided = [...keys].sort().map((key) => {
    const [instanceType, zone] = key.split('/') as [string, string];
    return decidePoolHealth(
      { pool: { instanceType, zone }, samples: input.samples.get(key) ?? [], price: input.prices.get(key) ?? null, previous: input.previous.get(key) ?? null, now: input.now },
      input.config,
    );
  });
  const health = limitAvoidEntries(decided, input.previous, input.recentAvoidEntries, input.now, input.rails.maxAvoidPerHour);
  const view = healthViewOf(health, input.prices);
  const rails = { maxExcludedShare: input.rails.maxExcludedShare, keepCheapest: input.rails.keepCheapest };
  const plans = input.nodePools.map((np) => planNodePoolEdit({ nodePool: np.name, requirements: np.requirements, record: np.record, offerings: input.offerings, health: view, rails, now: input.now }));
  return { health, plans };
}

/**
 * healthViewOf — what the NodePool planner reads of each pool: its state, share and Spot price (the price the decision
 * read, else the one in `prices`). Every caller of planNodePoolEdit builds its view here, so that a plan made again
 * before a write (or an approval carried out) sees the same prices as the pass that made it.
 */
export function healthViewOf(health: readonly PoolHealth[], prices: ReadonlyMap<string, PoolPrice> = new Map()): Map<string, PoolHealthView> {
  return new Map(
    health.map((h) => {
      const key = poolKeyOf(h.pool);
      return [key, { state: h.state, share: h.evidence.share, spotPerHour: h.evidence.price?.spotPerHour ?? prices.get(key)?.spotPerHour ?? null }];
    }),
  );
}

/** LedgerRowLike — the fields of a rebalance ledger row (`rebalances.list`) a sample is made of. */
export interface LedgerRowLike {
  instanceType: string | null;
  zone: string | null;
  capacityType?: string | null;
  seenAt: string | Date;
  outcome: string;
  interruptedAt: string | Date | null;
  leadTimeMs: number | null;
}

/**
 * samplesFromLedger — ledger rows grouped into samples by pool: `interrupted` and `survived` as they are, every
 * other outcome (still open, `removed`) `unknown`. Rows without a type or zone, or of on-demand nodes, are left out.
 */
export function samplesFromLedger(rows: readonly LedgerRowLike[]): Map<string, PoolSample[]> {
  const out = new Map<string, PoolSample[]>();
  for (const r of rows) {
    if (!r.instanceType || !r.zone || (r.capacityType && r.capacityType !== 'spot')) continue;
    const key = poolKeyOf({ instanceType: r.instanceType, zone: r.zone });
    const sample: PoolSample = {
      seenAt: new Date(r.seenAt),
      outcome: r.outcome === 'interrupted' ? 'interrupted' : r.outcome === 'survived' ? 'survived' : 'unknown',
      interruptedAt: r.interruptedAt ? new Date(r.interruptedAt) : null,
      leadTimeMs: r.leadTimeMs,
    };
    const list = out.get(key);
    if (list) list.push(sample);
    else out.set(key, [sample]);
  }
  return out;
}
