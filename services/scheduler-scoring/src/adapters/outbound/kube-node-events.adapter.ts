import * as k8s from '@kubernetes/client-node';
import { kubeErrorCode, makeCountedApiClient, type KubeRequestCounter, type NodeEventRepeat, type NodeEventWrites } from '@nodes-manager/platform';

const MERGE = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/**
 * KubeNodeEvents — scheduler-scoring's Events on Nodes (docs/pause.md#blocked), in `default` as the kubelet's: a new
 * Event, a merge patch counting one more occurrence of it (libs/platform NodeEventRecorder), and the fresh read of
 * the node it is about (its uid, and that it still exists).
 */
export class KubeNodeEvents implements NodeEventWrites {
  private readonly core: k8s.CoreV1Api;

  constructor(kc: k8s.KubeConfig, requests?: KubeRequestCounter) {
    this.core = makeCountedApiClient(kc, k8s.CoreV1Api, requests);
  }

  /** nodeUid — the node's uid now; undefined when it no longer exists. */
  async nodeUid(name: string): Promise<string | undefined> {
    try {
      return (await this.core.readNode({ name })).metadata?.uid ?? '';
    } catch (err) {
      if (kubeErrorCode(err) === 404) return undefined;
      throw err;
    }
  }

  // The namespace is written out (not NODE_EVENTS_NAMESPACE): test/deploy/rbac.int.ts derives each service's Role from
  // these calls as written.
  async create(body: k8s.CoreV1Event): Promise<void> {
    await this.core.createNamespacedEvent({ namespace: 'default', body });
  }

  async repeat(name: string, patch: NodeEventRepeat): Promise<boolean> {
    try {
      await this.core.patchNamespacedEvent({ name, namespace: 'default', body: patch }, MERGE);
      return true;
    } catch (err) {
      if (kubeErrorCode(err) === 404) return false;
      throw err;
    }
  }
}
