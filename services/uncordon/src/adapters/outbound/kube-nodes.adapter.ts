import * as k8s from '@kubernetes/client-node';
import { NODES_MANAGER_FIELD_MANAGER } from '@nodes-manager/contracts';
import { podFacts } from '@nodes-manager/kube';
import { kubeErrorCode, makeCountedApiClient, nodeEventBody, type KubeRequestCounter, type NodeEventType } from '@nodes-manager/platform';
import type { DrainPod } from '../../drain/domain/plan-drain.js';
import type { UncordonPatch } from '../../auto-uncordon/domain/decide-uncordon.js';

const MERGE = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const APPLY = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
const LIST_PAGE = 500;

/** PatchResult — how the API answered a guarded write: `conflict` (409) means "re-read next cycle". */
export type PatchResult = { ok: true; node: k8s.V1Node } | { ok: false; conflict: true } | { ok: false; conflict: false; notFound: boolean; message: string };

/** EvictOutcome — the Eviction API's answer, in the drain loop's terms. */
export interface EvictOutcome {
  outcome: 'accepted' | 'too-many-requests' | 'not-found' | 'error';
  message?: string;
  /** On a 429: the PodDisruptionBudget that refused (`namespace/name`), from the answer's causes, when it names one. */
  pdb?: string;
}

/** pdbOf — the budget a 429 names: its cause `The disruption budget <name> needs …` (the API server's words). */
export function pdbOf(err: unknown, namespace: string): string | undefined {
  const body = (err as { body?: unknown })?.body;
  let parsed: { details?: { causes?: { reason?: string; message?: string }[] } } | undefined;
  try {
    parsed = typeof body === 'string' ? JSON.parse(body) : (body as typeof parsed);
  } catch {
    return undefined;
  }
  for (const c of parsed?.details?.causes ?? []) {
    const m = /disruption budget (\S+)/i.exec(c.message ?? '');
    if (m) return `${namespace}/${m[1]}`;
  }
  return undefined;
}

const errMessage = (err: unknown): string => {
  const body = (err as { body?: unknown })?.body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: string };
      if (parsed.message) return parsed.message;
    } catch {
      /* not JSON */
    }
  }
  return err instanceof Error ? err.message : String(err);
};

/**
 * KubeNodes — the uncordon service's only door to the Kubernetes API: node reads and writes (field manager
 * `nodes-manager`), pods on a node, evictions, and Events on Nodes.
 */
export class KubeNodes {
  readonly core: k8s.CoreV1Api;
  constructor(
    readonly kc: k8s.KubeConfig,
    requests?: KubeRequestCounter,
  ) {
    this.core = makeCountedApiClient(kc, k8s.CoreV1Api, requests);
  }

  /** listNodes — a paged LIST of every node, and the list's resourceVersion (for a watch to start from). */
  async listNodes(): Promise<{ items: k8s.V1Node[]; resourceVersion: string }> {
    const items: k8s.V1Node[] = [];
    let cont: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.core.listNode({ limit: LIST_PAGE, ...(cont ? { _continue: cont } : {}) });
      items.push(...page.items);
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
      cont = page.metadata?._continue || undefined;
    } while (cont);
    return { items, resourceVersion };
  }

  /** getNode — one fresh read; undefined when the node does not exist. */
  async getNode(name: string): Promise<k8s.V1Node | undefined> {
    try {
      return await this.core.readNode({ name });
    } catch (err) {
      if (kubeErrorCode(err) === 404) return undefined;
      throw err;
    }
  }

  /** patchNode — a JSON merge patch as `nodes-manager`; a `metadata.resourceVersion` in it is the precondition. */
  async patchNode(name: string, body: UncordonPatch | Record<string, unknown>): Promise<PatchResult> {
    try {
      const node = await this.core.patchNode({ name, body, fieldManager: NODES_MANAGER_FIELD_MANAGER }, MERGE);
      return { ok: true, node };
    } catch (err) {
      const code = kubeErrorCode(err);
      if (code === 409) return { ok: false, conflict: true };
      return { ok: false, conflict: false, notFound: code === 404, message: errMessage(err) };
    }
  }

  /**
   * cordonForDrain — server-side apply (forced) of `spec.unschedulable: true` and the drain annotation: apply takes
   * ownership of `f:spec.f:unschedulable` even when the node was already cordoned, so the cordon is provably ours
   * and auto-uncordon never reverses it (docs/auto-uncordon.md clause 2).
   */
  async cordonForDrain(name: string, annotations: Record<string, string>): Promise<PatchResult> {
    try {
      const body = { apiVersion: 'v1', kind: 'Node', metadata: { name, annotations }, spec: { unschedulable: true } };
      const node = await this.core.patchNode({ name, body, fieldManager: NODES_MANAGER_FIELD_MANAGER, force: true }, APPLY);
      return { ok: true, node };
    } catch (err) {
      const code = kubeErrorCode(err);
      if (code === 409) return { ok: false, conflict: true };
      return { ok: false, conflict: false, notFound: code === 404, message: errMessage(err) };
    }
  }

  /** podsOnNode — every pod bound to the node (field selector `spec.nodeName`), paged. */
  async podsOnNode(node: string): Promise<k8s.V1Pod[]> {
    const items: k8s.V1Pod[] = [];
    let cont: string | undefined;
    do {
      const page = await this.core.listPodForAllNamespaces({
        fieldSelector: `spec.nodeName=${node}`,
        limit: LIST_PAGE,
        ...(cont ? { _continue: cont } : {}),
      });
      items.push(...page.items);
      cont = page.metadata?._continue || undefined;
    } while (cont);
    return items;
  }

  /** evict — the policy/v1 Eviction subresource: 429 is a PodDisruptionBudget refusal, 404 a pod already gone. */
  async evict(namespace: string, name: string, gracePeriodSeconds?: number): Promise<EvictOutcome> {
    try {
      await this.core.createNamespacedPodEviction({
        name,
        namespace,
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name, namespace },
          ...(gracePeriodSeconds !== undefined ? { deleteOptions: { gracePeriodSeconds } } : {}),
        },
      });
      return { outcome: 'accepted' };
    } catch (err) {
      const code = kubeErrorCode(err);
      if (code === 429) {
        const pdb = pdbOf(err, namespace);
        return { outcome: 'too-many-requests', message: errMessage(err), ...(pdb ? { pdb } : {}) };
      }
      if (code === 404) return { outcome: 'not-found' };
      return { outcome: 'error', message: errMessage(err) };
    }
  }

  /** deletePod — a finished pod goes without an Eviction (as kubectl drain does). */
  async deletePod(namespace: string, name: string): Promise<EvictOutcome> {
    try {
      await this.core.deleteNamespacedPod({ name, namespace });
      return { outcome: 'accepted' };
    } catch (err) {
      const code = kubeErrorCode(err);
      if (code === 404) return { outcome: 'not-found' };
      return { outcome: 'error', message: errMessage(err) };
    }
  }

  /** nodeEvent — one new core/v1 Event on the Node, in `default` as the kubelet's node events are (libs/platform nodeEventBody). */
  async nodeEvent(node: k8s.V1Node, reason: string, message: string, now: Date, type: NodeEventType = 'Normal'): Promise<void> {
    const body = nodeEventBody({ name: node.metadata?.name ?? '', ...(node.metadata?.uid ? { uid: node.metadata.uid } : {}) }, reason, message, now, type);
    await this.core.createNamespacedEvent({ namespace: 'default', body });
  }
}

/** drainPodOf — the drain's lean view of a pod, through the shared Kubernetes model. */
export function drainPodOf(pod: k8s.V1Pod): DrainPod {
  const f = podFacts(pod);
  const phase = f.phase;
  return {
    uid: f.uid,
    namespace: f.namespace,
    name: f.name,
    phase: phase === 'Pending' || phase === 'Running' || phase === 'Succeeded' || phase === 'Failed' ? phase : 'Unknown',
    ...(f.owner ? { controller: { kind: f.owner.kind, name: f.owner.name } } : {}),
    mirror: f.mirror,
    hasEmptyDir: f.hasEmptyDir,
    ...(f.deletionTimestamp ? { deletionTimestamp: new Date(f.deletionTimestamp) } : {}),
  };
}
