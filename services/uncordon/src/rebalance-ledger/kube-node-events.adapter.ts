import * as k8s from '@kubernetes/client-node';
import { NTH_REBALANCE_EVENT_REASON, NTH_SPOT_INTERRUPTION_EVENT_REASON } from '@nodes-manager/contracts';
import { apiTime } from '@nodes-manager/kube';
import { Informer, type JsonLogger, type Metrics } from '@nodes-manager/platform';
import type { NodeEvent } from './domain/ledger-node.js';

/** Node Events live in `default` (the kubelet's and NTH's); the informer LISTs and WATCHes this collection. */
const NODE_EVENTS_PATH = '/api/v1/namespaces/default/events';
const LEDGER_REASONS = new Set([NTH_REBALANCE_EVENT_REASON, NTH_SPOT_INTERRUPTION_EVENT_REASON]);



/** nodeEventOf — a core/v1 Event about a Node as the ledger takes it; its time is when it first happened. */
export function nodeEventOf(e: k8s.CoreV1Event): NodeEvent | undefined {
  const at = apiTime(e.firstTimestamp) ?? apiTime(e.eventTime) ?? apiTime(e.lastTimestamp) ?? apiTime(e.metadata?.creationTimestamp);
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
 * KubeNodeEvents — NTH's Events on Nodes (reasons `RebalanceRecommendation`, `SpotInterruption`) in `default`, kept by
 * an informer on `/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind=Node`: one paged LIST at start,
 * then a watch — no LIST per scan interval, so a quiet cluster costs no request (docs/kubernetes.md). Events of other
 * reasons are kept as `null` (only their key), so the cache holds the ledger's evidence only.
 */
export class KubeNodeEvents {
  private readonly informer: Informer<NodeEvent | null>;
  private started = false;

  constructor(kc: k8s.KubeConfig, opts: { logger?: JsonLogger; metrics?: { metrics: Metrics; service: string }; resyncMs?: number } = {}) {
    this.informer = new Informer<NodeEvent | null>({
      kc,
      path: `${NODE_EVENTS_PATH}?fieldSelector=involvedObject.kind%3DNode`,
      project: (e: k8s.CoreV1Event) => (e.reason && LEDGER_REASONS.has(e.reason) ? (nodeEventOf(e) ?? null) : null),
      name: 'uncordon-node-events',
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(opts.resyncMs ? { resyncMs: opts.resyncMs } : {}),
    });
  }

  /**
   * list — the ledger's Node Events the cache holds now. The informer starts on the first call (so
   * REBALANCE_EVENTS_ENABLED=false opens no watch at all); until its first LIST is in, the answer is empty.
   */
  async list(): Promise<NodeEvent[]> {
    if (!this.started) {
      this.started = true;
      this.informer.start();
    }
    return this.informer.list().filter((e): e is NodeEvent => e !== null);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.started) await this.informer.stop();
  }
}
