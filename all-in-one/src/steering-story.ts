import type { ReplayPool } from './ledger-history.js';

export interface SteeringStoryOptions {
  apiUrl: string;
  token: string;
  say: (line: string) => void;
  timeoutMs: number;
  /** The replay's bad pool: the one the story waits to see in `avoid`. */
  expectAvoid: Pick<ReplayPool, 'instanceType' | 'zone'> | null;
}

interface PoolsReply {
  mode: string;
  karpenterInstalled: boolean;
  pools: { instanceType: string; zone: string; state: string; sentence: string; nodes: number | null }[];
  nodePools: { nodePool: string; status: string; sentence: string; changes: string[]; excluded: { kind: string; value: string }[]; drift?: DriftView | null }[];
}

/** DriftView — a plan's drift forecast as `steering.pools` passes it on (libs/steering DriftForecast). */
interface DriftView {
  total?: number;
  onPurpose?: number;
  collateral?: number;
  usdPerHourBefore?: number | null;
  usdPerHourAfter?: number | null;
  sentence?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A plan's status in words (docs/steering.md). */
const STATUS_WORDS: Record<string, string> = {
  nothing_to_do: 'nothing to change',
  planned: 'planned, not written',
  paused: 'held: the fleet is paused',
  outside_window: 'waiting for its maintenance window',
  awaiting_approval: 'waiting for approval',
  written: 'written',
  conflict: 'changed meanwhile: planned again',
  failed: 'failed',
};
const KIND_WORDS: Record<string, string> = { 'instance-type': 'instance type', zone: 'zone', 'capacity-type': 'capacity type' };

/**
 * runSteeringStory — steering over the replayed ledger, told through GET /api/v1/steering/pools: the bad pool goes
 * to `avoid`, and each NodePool's plan (plan mode: nothing written) with what it would keep out and the nodes it would
 * drift. Resolves once the pool is avoided and a plan is recorded, or at the timeout.
 */
export async function runSteeringStory(o: SteeringStoryOptions): Promise<{ avoided: boolean; planned: boolean }> {
  const deadline = Date.now() + o.timeoutMs;
  let last: PoolsReply | undefined;
  while (Date.now() < deadline) {
    const res = await fetch(`${o.apiUrl}/api/v1/steering/pools`, { headers: { authorization: `Bearer ${o.token}` } }).catch(() => undefined);
    if (res?.ok) {
      last = (await res.json()) as PoolsReply;
      const avoided = last.pools.filter((p) => p.state === 'avoid');
      const wanted = !o.expectAvoid || avoided.some((p) => p.instanceType === o.expectAvoid!.instanceType && p.zone === o.expectAvoid!.zone);
      // A pass after the avoid: a NodePool's plan keeps the pool out, with its drift forecast.
      if (avoided.length > 0 && wanted && last.nodePools.some((np) => np.changes.length > 0 && np.drift)) break;
    }
    await sleep(1000);
  }
  if (!last) {
    o.say('steering story: GET /api/v1/steering/pools did not answer.');
    return { avoided: false, planned: false };
  }
  o.say(`Steering (STEERING_MODE=${last.mode}${last.mode === 'plan' ? ': nothing is written to the NodePools, the plan is shown' : ''}; Karpenter ${last.karpenterInstalled ? 'installed' : 'not installed'}):`);
  const avoided = last.pools.filter((p) => p.state === 'avoid');
  for (const p of avoided) o.say(`GET /api/v1/steering/pools: ${p.instanceType} in ${p.zone} → avoid (${p.nodes ?? 'unknown'} Spot nodes running there). ${p.sentence}`);
  for (const p of last.pools.filter((x) => x.state === 'watch')) o.say(`GET /api/v1/steering/pools: ${p.instanceType} in ${p.zone} → watch. ${p.sentence}`);
  for (const np of last.nodePools) {
    const out = np.excluded.map((e) => `${KIND_WORDS[e.kind] ?? e.kind} ${e.value}`).join(', ');
    const d = np.drift;
    const drift = d && d.total ? ` Drift forecast: ${d.total ?? (d.onPurpose ?? 0) + (d.collateral ?? 0)} running nodes replaced, ${d.onPurpose ?? 0} off the avoided pools and ${d.collateral ?? 0} elsewhere.` : '';
    o.say(`NodePool ${np.nodePool}: ${STATUS_WORDS[np.status] ?? np.status}${out ? `, would keep out ${out}` : ''}. ${np.sentence}${drift}`);
  }
  const ok = avoided.length > 0 && last.nodePools.some((np) => np.changes.length > 0 && np.drift);
  o.say(ok ? 'steering story complete: a pool in avoid and its NodePool plan, nothing written.' : 'steering story did not complete.');
  return { avoided: avoided.length > 0, planned: ok };
}
