import type * as k8s from '@kubernetes/client-node';
import { NODES_MANAGER_FIELD_MANAGER } from '@nodes-manager/contracts';

/**
 * NODE_EVENTS_NAMESPACE — where Events about Nodes go: `default`, as the kubelet's own (a Node has no namespace, and
 * `kubectl describe node` finds them there).
 */
export const NODE_EVENTS_NAMESPACE = 'default';

/** EventNode — the Node an Event is about: its name and, when known, its uid (a node re-created with the same name is another object). */
export interface EventNode {
  readonly name: string;
  readonly uid?: string;
}

export type NodeEventType = 'Normal' | 'Warning';

/**
 * nodeEventBody — a core/v1 Event about `node` in {@link NODE_EVENTS_NAMESPACE}, reported by `nodes-manager`, seen
 * once at `now`. Its name is the node's with a time-and-random suffix, as client-go's recorder names them, so two
 * services (or two replicas) writing Events on one node never collide.
 */
export function nodeEventBody(node: EventNode, reason: string, message: string, now: Date, type: NodeEventType = 'Normal'): k8s.CoreV1Event {
  return {
    metadata: { name: `${node.name}.${now.getTime().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`, namespace: NODE_EVENTS_NAMESPACE },
    involvedObject: { apiVersion: 'v1', kind: 'Node', name: node.name, ...(node.uid ? { uid: node.uid } : {}) },
    reason,
    message,
    type,
    source: { component: NODES_MANAGER_FIELD_MANAGER },
    reportingComponent: NODES_MANAGER_FIELD_MANAGER,
    reportingInstance: NODES_MANAGER_FIELD_MANAGER,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

/** NodeEventRepeat — the merge patch that records one more occurrence of an Event already written. */
export interface NodeEventRepeat {
  readonly count: number;
  readonly lastTimestamp: Date;
  readonly message: string;
  readonly type: NodeEventType;
}

/**
 * NodeEventWrites — the two writes a recorder makes, in `default`. Each service's own Kubernetes adapter makes the
 * calls (`createNamespacedEvent`, `patchNamespacedEvent` with a merge patch), so its RBAC is derived from its code.
 */
export interface NodeEventWrites {
  create(body: k8s.CoreV1Event): Promise<void>;
  /** repeat — the merge patch on Event `name`; false when the Event no longer exists (404: expired after the API server's event TTL, or deleted). */
  repeat(name: string, patch: NodeEventRepeat): Promise<boolean>;
}

/** RecordedNodeEvent — what `record` did: a new Event, or one more occurrence (`count`) of the one written before. */
export type RecordedNodeEvent = { readonly action: 'created'; readonly name: string } | { readonly action: 'repeated'; readonly name: string; readonly count: number };

/**
 * NodeEventRecorder — Events on Nodes de-duplicated as Kubernetes' own recorder does (client-go's EventCorrelator):
 * the first occurrence of a reason on a node creates an Event; the next ones patch that Event — `count` + 1,
 * `lastTimestamp`, the latest `message` — so `kubectl describe node` shows `(x4 over 2h)` rather than four rows. The
 * Events written are remembered in memory (at most `maxEntries`, the oldest forgotten first): a new process, or a new
 * leader, starts a new Event, as a restarted controller does; one whose Event has gone (404) creates it again.
 * Callers decide when something happened (docs/pause.md#blocked); this only writes it.
 */
export class NodeEventRecorder {
  /** `uid-or-name/reason` → the Event written and its count, in insertion order (the eviction order). */
  private readonly written = new Map<string, { name: string; count: number }>();

  constructor(
    private readonly writes: NodeEventWrites,
    private readonly maxEntries = 4096,
  ) {}

  async record(node: EventNode, reason: string, message: string, now: Date, type: NodeEventType = 'Normal'): Promise<RecordedNodeEvent> {
    const key = `${node.uid ?? node.name}/${node.name}/${reason}`;
    const seen = this.written.get(key);
    if (seen && (await this.writes.repeat(seen.name, { count: seen.count + 1, lastTimestamp: now, message, type }))) {
      this.remember(key, { name: seen.name, count: seen.count + 1 });
      return { action: 'repeated', name: seen.name, count: seen.count + 1 };
    }
    const body = nodeEventBody(node, reason, message, now, type);
    await this.writes.create(body);
    this.remember(key, { name: body.metadata.name!, count: 1 });
    return { action: 'created', name: body.metadata.name! };
  }

  private remember(key: string, entry: { name: string; count: number }): void {
    this.written.delete(key);
    this.written.set(key, entry);
    if (this.written.size > this.maxEntries) this.written.delete(this.written.keys().next().value!);
  }
}
