import * as k8s from '@kubernetes/client-node';
import { NTH_REBALANCE_EVENT_REASON, NTH_SPOT_INTERRUPTION_EVENT_REASON } from '@nodes-manager/contracts';
import type { NodeEvent } from '../../domain/rebalance/ledger-node.js';

const LEDGER_REASONS = new Set([NTH_REBALANCE_EVENT_REASON, NTH_SPOT_INTERRUPTION_EVENT_REASON]);
const PAGE = 500;


const toDate = (v: unknown): Date | undefined => {
  if (v instanceof Date) return v;
  if (typeof v === 'string' && v) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
};

/** nodeEventOf — a core/v1 Event about a Node as the ledger takes it; its time is when it first happened. */
export function nodeEventOf(e: k8s.CoreV1Event): NodeEvent | undefined {
  const at = toDate(e.firstTimestamp) ?? toDate(e.eventTime) ?? toDate(e.lastTimestamp) ?? toDate(e.metadata?.creationTimestamp);
  if (!at || !e.reason || !e.involvedObject?.name) return undefined;
  return {
    reason: e.reason,
    node: e.involvedObject.name,
    ...(e.involvedObject.uid ? { nodeUid: e.involvedObject.uid } : {}),
    at,
    ...(e.message ? { message: e.message } : {}),
  };
}

/**
 * KubeNodeEvents — NTH's Events on Nodes (reasons `RebalanceRecommendation`, `SpotInterruption`): one paged LIST of
 * the Node Events in `default` (field selector `involvedObject.kind=Node`), filtered by reason here. The ledger
 * calls it at most once per scan interval.
 */
export class KubeNodeEvents {
  private readonly core: k8s.CoreV1Api;
  constructor(kc: k8s.KubeConfig) {
    this.core = kc.makeApiClient(k8s.CoreV1Api);
  }

  async list(): Promise<NodeEvent[]> {
    const out: NodeEvent[] = [];
    let cont: string | undefined;
    do {
      const page = await this.core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.kind=Node', limit: PAGE, ...(cont ? { _continue: cont } : {}) });
      for (const e of page.items) {
        if (!e.reason || !LEDGER_REASONS.has(e.reason)) continue;
        const ev = nodeEventOf(e);
        if (ev) out.push(ev);
      }
      cont = page.metadata?._continue || undefined;
    } while (cont);
    return out;
  }
}
