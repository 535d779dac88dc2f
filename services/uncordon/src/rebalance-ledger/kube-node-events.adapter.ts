import * as k8s from '@kubernetes/client-node';
import { LEDGER_EVENT_REASONS } from '@nodes-manager/contracts';
import { apiTime, parseProviderId } from '@nodes-manager/kube';
import { Informer, kubeErrorCode, makeCountedApiClient, type JsonLogger, type Metrics } from '@nodes-manager/platform';
import type { ClaimEvent, ClaimRef, NodeEvent } from './domain/ledger-node.js';

/**
 * Events of cluster-scoped objects (Nodes, NodeClaims) live in `default`: client-go's recorder puts an Event of an
 * object with no namespace there, and NTH in IMDS mode names `default` itself. The informers LIST and WATCH it.
 */
const DEFAULT_EVENTS_PATH = '/api/v1/namespaces/default/events';
const NODECLAIMS_PATH = '/apis/karpenter.sh/v1/nodeclaims';
const LEDGER_REASONS = new Set(LEDGER_EVENT_REASONS);
/** How often a cluster without Karpenter is asked again whether it has it now. */
const KARPENTER_RECHECK_MS = 5 * 60_000;

const firstTime = (e: k8s.CoreV1Event): Date | undefined => apiTime(e.firstTimestamp) ?? apiTime(e.eventTime) ?? apiTime(e.lastTimestamp) ?? apiTime(e.metadata?.creationTimestamp);

/** nodeEventOf — a core/v1 Event about a Node as the ledger takes it; its time is when it first happened. */
export function nodeEventOf(e: k8s.CoreV1Event): NodeEvent | undefined {
  const at = firstTime(e);
  if (!at || !e.reason || !e.involvedObject?.name) return undefined;
  return {
    reason: e.reason,
    node: e.involvedObject.name,
    ...(e.involvedObject.uid ? { nodeUid: e.involvedObject.uid } : {}),
    at,
    ...(e.message ? { message: e.message } : {}),
  };
}

/** claimEventOf — a core/v1 Event about a Karpenter NodeClaim, before it is attributed to the claim's node. */
export function claimEventOf(e: k8s.CoreV1Event): ClaimEvent | undefined {
  const at = firstTime(e);
  if (!at || !e.reason || !e.involvedObject?.name) return undefined;
  return { reason: e.reason, nodeClaim: e.involvedObject.name, at, ...(e.message ? { message: e.message } : {}) };
}

/** claimRefOf — what ties a NodeClaim to its node: `status.nodeName` and the instance id of `status.providerID`. */
export function claimRefOf(o: { metadata?: { name?: string }; status?: { nodeName?: string; providerID?: string } }): ClaimRef {
  const instanceId = parseProviderId(o.status?.providerID)?.instanceId;
  return { name: o.metadata?.name ?? '', ...(o.status?.nodeName ? { nodeName: o.status.nodeName } : {}), ...(instanceId ? { instanceId } : {}) };
}

/** KarpenterPresence — whether the API server serves `karpenter.sh/v1` NodeClaims, as last asked. */
export type KarpenterPresence = 'unknown' | 'installed' | 'not-installed';

/** LedgerEventsView — what the ledger reads of the cluster's Events and NodeClaims, as the informers hold them now. */
export interface LedgerEventsView {
  readonly nodeEvents: NodeEvent[];
  readonly claimEvents: ClaimEvent[];
  readonly claims: ClaimRef[];
}

type InformerOpts = { logger?: JsonLogger; metrics?: { metrics: Metrics; service: string }; resyncMs?: number };

/**
 * KubeNodeEvents — the Events the ledger reads, kept by informers (one paged LIST at start, then a watch — no LIST per
 * scan interval; docs/kubernetes.md):
 * - Events on Nodes in `default` (`involvedObject.kind=Node`): NTH's `RebalanceRecommendation` / `SpotInterruption`
 *   in IMDS and queue mode, and Karpenter's `SpotRebalanceRecommendation` / `SpotInterrupted`;
 * - Events on NodeClaims (`involvedObject.kind=NodeClaim`), Karpenter's same reasons, and the NodeClaims themselves
 *   (`karpenter.sh/v1`, to find each claim's node) — only when the API server serves NodeClaims, asked through
 *   discovery and again every 5 minutes while it does not.
 * Events of other reasons are kept as `null` (only their key), so the caches hold the ledger's evidence only.
 */
export class KubeNodeEvents {
  private readonly nodeEvents: Informer<NodeEvent | null>;
  private readonly claimEvents: Informer<ClaimEvent | null>;
  private readonly claims: Informer<ClaimRef>;
  /** NodeClaims deleted since the last view: Karpenter deletes one right after its interruption Event, often before the ledger's next view. */
  private deletedClaims: ClaimRef[] = [];
  private readonly custom: k8s.CustomObjectsApi;
  private started = false;
  private karpenterStarted = false;
  private karpenterCheckedAt = Number.NEGATIVE_INFINITY;
  presence: KarpenterPresence = 'unknown';

  constructor(
    kc: k8s.KubeConfig,
    private readonly opts: InformerOpts & { now: () => number },
  ) {
    const common = {
      kc,
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      ...(opts.resyncMs ? { resyncMs: opts.resyncMs } : {}),
    };
    this.nodeEvents = new Informer<NodeEvent | null>({
      ...common,
      path: `${DEFAULT_EVENTS_PATH}?fieldSelector=involvedObject.kind%3DNode`,
      project: (e: k8s.CoreV1Event) => (e.reason && LEDGER_REASONS.has(e.reason) ? (nodeEventOf(e) ?? null) : null),
      name: 'uncordon-node-events',
    });
    this.claimEvents = new Informer<ClaimEvent | null>({
      ...common,
      path: `${DEFAULT_EVENTS_PATH}?fieldSelector=involvedObject.kind%3DNodeClaim`,
      project: (e: k8s.CoreV1Event) => (e.reason && LEDGER_REASONS.has(e.reason) ? (claimEventOf(e) ?? null) : null),
      name: 'uncordon-nodeclaim-events',
    });
    this.claims = new Informer<ClaimRef>({ ...common, path: NODECLAIMS_PATH, project: claimRefOf, key: (o) => o?.metadata?.name ?? '', name: 'uncordon-nodeclaims' });
    this.claims.on('delete', (claim) => this.deletedClaims.push(claim));
    this.custom = makeCountedApiClient(kc, k8s.CustomObjectsApi, undefined);
  }

  /**
   * view — the ledger's Events and the NodeClaims the caches hold now. The informers start on the first call (so
   * REBALANCE_EVENTS_ENABLED=false opens no watch at all); until a first LIST is in, its part is empty.
   */
  async view(): Promise<LedgerEventsView> {
    if (!this.started) {
      this.started = true;
      this.nodeEvents.start();
    }
    await this.checkKarpenter();
    const deleted = this.deletedClaims;
    this.deletedClaims = [];
    return {
      nodeEvents: this.nodeEvents.list().filter((e): e is NodeEvent => e !== null),
      claimEvents: this.karpenterStarted ? this.claimEvents.list().filter((e): e is ClaimEvent => e !== null) : [],
      // The live ones, and those deleted since the last view: the ledger remembers both (a claim's Events outlive it).
      claims: this.karpenterStarted ? [...this.claims.list(), ...deleted] : [],
    };
  }

  /** status — each informer's state in words, for `/readyz` (docs/rebalance-ledger.md#sources). */
  status(): { nodeEvents: string; karpenter: string } {
    const of = (i: { synced: boolean; health(): { ok: boolean } }) => (i.synced ? (i.health().ok ? 'watching' : 'failing') : 'starting');
    return {
      nodeEvents: this.started ? of(this.nodeEvents) : 'not started',
      karpenter: this.presence === 'not-installed' ? 'not installed (no karpenter.sh/v1 NodeClaims served)' : this.karpenterStarted ? `NodeClaims ${of(this.claims)}, their Events ${of(this.claimEvents)}` : 'not checked yet',
    };
  }

  /** checkKarpenter — starts the NodeClaim informers once discovery shows Karpenter's NodeClaims; asks again every 5 min. */
  private async checkKarpenter(): Promise<void> {
    if (this.karpenterStarted) return;
    const now = this.opts.now();
    if (now - this.karpenterCheckedAt < KARPENTER_RECHECK_MS) return;
    this.karpenterCheckedAt = now;
    try {
      const list = await this.custom.getAPIResources({ group: 'karpenter.sh', version: 'v1' });
      this.presence = (list.resources ?? []).some((r) => r.name === 'nodeclaims') ? 'installed' : 'not-installed';
    } catch (err) {
      if (kubeErrorCode(err) === 404) this.presence = 'not-installed';
      else {
        this.karpenterCheckedAt = Number.NEGATIVE_INFINITY;
        this.opts.logger?.warn('could not ask the API server whether Karpenter is installed', { err: (err as Error).message });
        return;
      }
    }
    if (this.presence === 'installed') {
      this.karpenterStarted = true;
      this.claims.start();
      this.claimEvents.start();
      this.opts.logger?.info('Karpenter NodeClaims served: the ledger reads their Events');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.started) await this.nodeEvents.stop();
    if (this.karpenterStarted) await Promise.all([this.claims.stop(), this.claimEvents.stop()]);
  }
}
