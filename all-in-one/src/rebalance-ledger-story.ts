import type { Ec2Sim, KubeSim } from '@nodes-manager/sim';
import { planRebalances, RebalancePlayout } from '@nodes-manager/sim';

export interface LedgerStoryOptions {
  apiUrl: string;
  token: string;
  kube: KubeSim;
  ec2: Ec2Sim;
  say: (line: string) => void;
  /** Nodes the first story uses: left alone here. */
  exclude: readonly string[];
  /** REBALANCE_HORIZON_HOURS the services run with (compressed for the demo). */
  horizonHours: number;
  timeoutMs: number;
}

interface NodeView {
  name: string;
  state: string;
  capacityType: string | null;
  instanceId: string | null;
  instanceType: string | null;
  zone: string | null;
}

interface RebalanceRow {
  node: string;
  outcome: string;
  resolved: boolean;
  leadTimeMs: number | null;
  uncordonedAt: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REBALANCES = 8;

/**
 * runRebalanceLedgerStory — the demo's second story, in compressed time (seconds instead of hours): eight Spot nodes
 * get rebalance recommendations a few seconds apart, the simulators play out which are then interrupted (NTH's
 * spot-itn taint and Event, the node going, EC2's state reason), and the ledger (GET /api/v1/rebalances) and its
 * figures (GET /api/v1/rebalances/summary) show what followed. Resolves once every row has its final outcome.
 */
export async function runRebalanceLedgerStory(o: LedgerStoryOptions): Promise<{ resolved: number; interrupted: number }> {
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(o.apiUrl + path, { headers: { authorization: `Bearer ${o.token}` } });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const nodes = (await api<{ items: NodeView[] }>('/api/v1/nodes?limit=500&capacityType=spot&state=Ready')).items.filter((n) => !o.exclude.includes(n.name) && n.instanceId);
  const chosen = nodes.slice(0, REBALANCES);
  if (chosen.length === 0) {
    o.say('rebalance ledger story: no Ready Spot node left to play it with.');
    return { resolved: 0, interrupted: 0 };
  }
  o.ec2.adopt(chosen.map((n) => ({ instanceId: n.instanceId!, instanceType: n.instanceType ?? 'm5.large', availabilityZone: n.zone ?? 'us-east-1a', spot: true })));
  const start = Date.now();
  const plan = planRebalances(
    chosen.map((n, i) => ({ node: n.name, at: new Date(start + i * 3_000), instanceId: n.instanceId! })),
    // Compressed time: lead times of ~25 s instead of hours. Seed 5: four of the eight are interrupted (after 9, 22, 35
    // and 46 s), the last two after auto-uncordon (30 s grace) gave them back; the other four survive the horizon.
    { seed: 5, followUpRate: 0.35, leadTime: { kind: 'lognormal', medianMinutes: 0.4, sigma: 0.5, minMinutes: 0.15, maxMinutes: 1.2 } },
  );
  const horizonS = Math.round(o.horizonHours * 3600);
  o.say(`Rebalance ledger (compressed time: an observation horizon of ${horizonS} s instead of 24 h, lead times of seconds instead of hours):`);
  o.say(`${chosen.length} more Spot nodes get rebalance recommendations, 3 s apart; the simulators decide which are then interrupted.`);
  const playout = new RebalancePlayout(o.kube, plan, { ec2: o.ec2, removeAfterMs: 5_000 });
  const timer = setInterval(() => playout.advanceTo(new Date()), 250);
  const said = new Map<string, string>();
  try {
    const deadline = Date.now() + o.timeoutMs;
    while (Date.now() < deadline) {
      const rows = (await api<{ items: RebalanceRow[] }>('/api/v1/rebalances?limit=100').catch(() => ({ items: [] as RebalanceRow[] }))).items.filter((r) => chosen.some((n) => n.name === r.node));
      for (const r of rows) {
        const line = `${r.outcome}${r.leadTimeMs !== null ? ` ${Math.round(r.leadTimeMs / 1000)} s after the rebalance` : ''}${r.uncordonedAt && r.outcome !== 'uncordoned' ? ' (auto-uncordon had given it back)' : ''}`;
        if (said.get(r.node) === line) continue;
        said.set(r.node, line);
        o.say(`GET /api/v1/rebalances: ${r.node} → ${line}`);
      }
      if (rows.length === chosen.length && rows.every((r) => r.resolved)) {
        const s = await api<{ cluster: { samples: number; interrupted: number; interruptedShare: number | null; interval95: [number, number] | null; leadTimeMinutes: { median: number; p90: number } | null; nodeHoursGivenBack: number } }>('/api/v1/rebalances/summary');
        const c = s.cluster;
        o.say(
          `GET /api/v1/rebalances/summary: ${c.interrupted} of ${c.samples} rebalances followed by an interruption` +
            (c.interruptedShare !== null && c.interval95 ? ` (${Math.round(c.interruptedShare * 100)}%, 95% interval ${Math.round(c.interval95[0] * 100)}–${Math.round(c.interval95[1] * 100)}%)` : '') +
            (c.leadTimeMinutes ? `, lead time median ${Math.round(c.leadTimeMinutes.median * 60)} s, p90 ${Math.round(c.leadTimeMinutes.p90 * 60)} s` : '') +
            `, ${(c.nodeHoursGivenBack * 60).toFixed(1)} node-minutes given back by auto-uncordon.`,
        );
        return { resolved: rows.length, interrupted: c.interrupted };
      }
      await sleep(2_000);
    }
    o.say('rebalance ledger story: not every row resolved in time.');
    return { resolved: [...said.values()].length, interrupted: 0 };
  } finally {
    clearInterval(timer);
  }
}
