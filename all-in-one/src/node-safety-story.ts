import { FENCING_LABEL, FENCING_LABEL_ENABLED, PRESSURE_LABEL, type FencingView, type NodePressure } from '@nodes-manager/contracts';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Ec2Sim, Fleet, KubeSim } from '@nodes-manager/sim';

/** How many nodes of the demo fleet opt in to fencing (enough that one hung node is never a "partition"). */
const FENCING_NODES = 12;

/**
 * prepareNodeSafety — before the fleet is loaded: a dozen nodes opt in to fencing, one to pressure relief; the EC2
 * simulator learns the fleet's instances so that it can stop one.
 */
export function prepareNodeSafety(fleet: Fleet, ec2: Ec2Sim): { fenced: string[]; relieve: string } {
  const fenced = fleet.nodes.slice(0, FENCING_NODES).map((n) => n.metadata!.name!);
  const relieve = fleet.nodes[fleet.nodes.length - 1]!.metadata!.name!;
  for (const n of fleet.nodes) {
    if (fenced.includes(n.metadata!.name!)) n.metadata!.labels![FENCING_LABEL] = FENCING_LABEL_ENABLED;
    if (n.metadata!.name === relieve) n.metadata!.labels![PRESSURE_LABEL] = 'relieve';
  }
  ec2.adoptNodes(fleet.nodes);
  return { fenced, relieve };
}

export interface NodeSafetyStoryOptions {
  apiUrl: string;
  token: string;
  kube: KubeSim;
  /** A node that opted in to fencing, and one that opted in to relief. */
  hung: string;
  relieve: string;
  say: (line: string) => void;
  timeoutMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * runNodeSafetyStory — a node's kubelet hangs: nodes-manager proves it dead through EC2 (StopInstances, confirmed
 * stopped), taints it out-of-service and frees its pods; another node runs out of memory: the pod most above its
 * request is evicted. Told through GET /api/v1/fencing and GET /api/v1/pressure.
 */
export async function runNodeSafetyStory(o: NodeSafetyStoryOptions): Promise<{ fenced: boolean; relieved: boolean }> {
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(o.apiUrl + path, { headers: { authorization: `Bearer ${o.token}` } });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  };
  o.say(`${o.hung}'s kubelet hangs: its Lease in kube-node-lease stops being renewed and the node turns Ready=Unknown.`);
  o.kube.scenario.hangNode(o.hung, { since: new Date(Date.now() - 120_000) });
  o.say(`${o.relieve} runs short of memory: PSI memory full avg10 55%, its pods far above their memory requests.`);
  const core = o.kube.kubeConfig().makeApiClient(CoreV1Api);
  const pods = (await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${o.relieve}` })).items;
  // Every pod on the node uses far more than it asked for; relief picks one (never a Guaranteed or DaemonSet pod).
  o.kube.scenario.setPressure(o.relieve, {
    memory: { some: { avg10: 70, avg60: 60 }, full: { avg10: 55, avg60: 40 } },
    podMemoryBytes: Object.fromEntries(pods.map((p, i) => [`${p.metadata!.namespace}/${p.metadata!.name}`, (8 + i) * 2 ** 30])),
  });

  const deadline = Date.now() + o.timeoutMs;
  let fenced = false;
  let relieved = false;
  const told = new Set<string>();
  while (Date.now() < deadline && !(fenced && relieved)) {
    const view = await api<FencingView>('/api/v1/fencing').catch(() => undefined);
    const op = view?.operations.find((x) => x.node === o.hung);
    for (const step of op?.steps ?? []) {
      const key = `${step.status}`;
      if (told.has(key)) continue;
      told.add(key);
      o.say(`GET /api/v1/fencing: ${o.hung} → ${step.status}${step.detail ? ` (${step.detail})` : ''}`);
    }
    if (op?.status === 'completed') fenced = true;
    const verdict = view?.verdicts.find((v) => v.node === o.hung);
    if (verdict && !told.has(`verdict:${verdict.reason}`)) {
      told.add(`verdict:${verdict.reason}`);
      o.say(`GET /api/v1/fencing: verdict ${verdict.decision} ${verdict.reason} — ${verdict.message}`);
    }
    const p = (await api<{ items: NodePressure[] }>(`/api/v1/pressure?node=${o.relieve}`).catch(() => ({ items: [] as NodePressure[] }))).items[0];
    if (p?.lastRelief && !relieved) {
      relieved = true;
      o.say(`GET /api/v1/pressure: ${o.relieve} memory full avg10 ${p.memory?.full.avg10 ?? '?'}% for ${p.highSamples} readings → relief: ${p.lastRelief.outcome} ${p.lastRelief.pod}`);
      o.kube.scenario.setPressure(o.relieve, null);
    }
    await sleep(1000);
  }
  o.say(fenced ? `${o.hung} is fenced: its instance is stopped in EC2, it carries node.kubernetes.io/out-of-service and its pods can start elsewhere.` : `${o.hung} was not fenced within ${Math.round(o.timeoutMs / 1000)} s.`);
  return { fenced, relieved };
}
