import type { KubeSim } from '@nodes-manager/sim';

interface CordonView {
  node: string;
  decision: string;
  reason: string;
  uncordonAt?: string;
  evidence?: { cordonManager?: string };
}

export interface StoryOptions {
  apiUrl: string;
  token: string;
  kube: KubeSim;
  say: (line: string) => void;
  timeoutMs: number;
}

export interface StoryResult {
  rebalanced: string;
  manual: string;
  uncordoned: boolean;
  manualStillCordoned: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * runRebalanceStory — the demo's story, told through the public API: a Spot rebalance recommendation makes
 * aws-node-termination-handler cordon a node; an operator cordons another by hand; nodes-manager reverses the first
 * after the grace period and leaves the second alone, explaining each verdict on the way.
 */
export async function runRebalanceStory(o: StoryOptions): Promise<StoryResult> {
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(o.apiUrl + path, { headers: { authorization: `Bearer ${o.token}` } });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const nodes = await waitForNodes(api, o);
  const spot = nodes.find((n) => n.capacityType === 'spot' && n.state === 'Ready');
  const other = nodes.find((n) => n.name !== spot?.name && n.state === 'Ready');
  if (!spot || !other) throw new Error('the simulated fleet has no Ready spot node to tell the story with');

  o.say(`AWS sends a Spot rebalance recommendation for ${spot.name} (${spot.instanceType} in ${spot.zone}).`);
  o.say(`aws-node-termination-handler cordons it and taints it aws-node-termination-handler/rebalance-recommendation.`);
  o.kube.scenario.cordonAsNth(spot.name, { taint: true });
  o.say(`An operator cordons ${other.name} by hand (kubectl cordon) for maintenance.`);
  o.kube.scenario.cordonAsKubectl(other.name);

  const deadline = Date.now() + o.timeoutMs;
  const last = new Map<string, string>();
  let uncordoned = false;
  while (Date.now() < deadline) {
    const cordons = await api<{ items: CordonView[] }>('/api/v1/cordons').catch(() => ({ items: [] as CordonView[] }));
    for (const c of cordons.items.filter((x) => x.node === spot.name || x.node === other.name)) {
      const line = `${c.decision} ${c.reason}`;
      if (last.get(c.node) === line) continue;
      last.set(c.node, line);
      const when = c.uncordonAt ? `, uncordon at ${c.uncordonAt}` : '';
      o.say(`GET /api/v1/cordons: ${c.node} → ${c.decision} (${c.reason}${c.evidence?.cordonManager ? `, cordoned by ${c.evidence.cordonManager}` : ''}${when})`);
    }
    const events = await api<{ items: { nodeName?: string; node?: string; action: string; reason: string }[] }>(`/api/v1/events?node=${spot.name}`).catch(() => ({ items: [] }));
    if (events.items.some((e) => e.action === 'uncordon')) {
      uncordoned = true;
      break;
    }
    await sleep(2000);
  }
  if (!uncordoned) {
    o.say(`${spot.name} was not uncordoned within ${Math.round(o.timeoutMs / 1000)} s.`);
    return { rebalanced: spot.name, manual: other.name, uncordoned, manualStillCordoned: true };
  }
  o.say(`nodes-manager uncordoned ${spot.name}: it was cordoned by the rebalance recommendation, stayed Ready through the grace period, and the scaling event is recorded (GET /api/v1/events).`);
  // The uncordon is a patch to the API server; the node's row changes when node-sync sees the watch event. Read the
  // node once that change is visible, so the story never reports the state from before the uncordon.
  const after = await waitForUncordonVisible(api, spot.name, 30_000);
  o.say(after ? `GET /api/v1/nodes/${spot.name}: state ${after.state}.` : `GET /api/v1/nodes/${spot.name} still shows the cordon after 30 s (node-sync has not seen the change yet).`);
  const manual = (await api<{ items: CordonView[] }>('/api/v1/cordons')).items.find((c) => c.node === other.name);
  const stays = !!manual && manual.decision !== 'uncordon';
  o.say(stays ? `${other.name} stays cordoned: ${manual!.reason} — a cordon nodes-manager did not prove to be the rebalance one is never touched.` : `${other.name} is no longer listed as cordoned.`);
  return { rebalanced: spot.name, manual: other.name, uncordoned, manualStillCordoned: stays };
}

/** waitForUncordonVisible — the node as the API shows it once it is schedulable again, or undefined after `timeoutMs`. */
async function waitForUncordonVisible(api: <T>(p: string) => Promise<T>, name: string, timeoutMs: number): Promise<{ state: string } | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const node = await api<{ unschedulable: boolean; state: string }>(`/api/v1/nodes/${name}`).catch(() => undefined);
    if (node && !node.unschedulable) return node;
    await sleep(250);
  }
  return undefined;
}

interface NodeView {
  name: string;
  state: string;
  capacityType: string | null;
  instanceType: string | null;
  zone: string | null;
}

async function waitForNodes(api: <T>(p: string) => Promise<T>, o: StoryOptions): Promise<NodeView[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await api<{ items: NodeView[] }>('/api/v1/nodes?limit=500').catch(() => ({ items: [] as NodeView[] }));
    if (page.items.length > 0) {
      o.say(`node-sync has projected ${page.items.length} nodes into Postgres (GET /api/v1/nodes).`);
      return page.items;
    }
    if (Date.now() > deadline) throw new Error('node-sync did not project any node within 60 s');
    await sleep(1000);
  }
}
