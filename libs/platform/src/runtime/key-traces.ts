import { inSpan, spanContextOf, tracedContext, type Context, type Link } from '../tracing/tracing.js';

/** How many reconciles of one key continue the trace that enqueued it (a key that requeues forever stops there). */
export const MAX_TRACED_RECONCILES = 200;
/** Links a reconcile span keeps to other traces that asked for the same key meanwhile. */
const MAX_LINKS = 32;

interface KeyTrace {
  parent: Context;
  links: Link[];
  reconciles: number;
}

/**
 * KeyTraces — how a trace survives a controller's work queue (docs/observability.md#across-the-work-queue). A key
 * enqueued by traced work (a command handler, another traced reconcile) remembers that context: its reconciles —
 * the first and every requeue or retry after it, until one ends with nothing more to do — are spans `reconcile
 * <controller>` **parented** under it, so a drain's steps (cordon, evictions, events) belong to the request that
 * asked for it. The queue de-duplicates keys: another trace asking for a key that already carries one is added to
 * the next reconcile span as a **link**. A key enqueued by untraced work (informer events, resyncs, timers) makes no
 * span. With tracing off nothing is stored: `tracedContext()` is undefined.
 */
export class KeyTraces {
  private readonly byKey = new Map<string, KeyTrace>();

  /** add — the key was enqueued: remember the traced caller's context (or link it to the one already there). */
  add(key: string): void {
    const ctx = tracedContext();
    if (!ctx) return;
    const current = this.byKey.get(key);
    if (!current) {
      this.byKey.set(key, { parent: ctx, links: [], reconciles: 0 });
      return;
    }
    const sc = spanContextOf(ctx)!;
    const ours = spanContextOf(current.parent)!;
    if (sc.traceId === ours.traceId || current.links.length >= MAX_LINKS || current.links.some((l) => l.context.traceId === sc.traceId)) return;
    current.links.push({ context: sc });
  }

  /** run — one reconcile of the key: inside its span when the key carries a trace, else as it is. */
  run<T>(key: string, controller: string, ctx: { readonly retries: number }, reconcile: () => Promise<T>): Promise<T> {
    const t = this.byKey.get(key);
    if (!t) return reconcile();
    if (++t.reconciles > MAX_TRACED_RECONCILES) {
      this.byKey.delete(key);
      return reconcile();
    }
    const links = t.links.splice(0);
    const attributes = { 'nodes_manager.controller': controller, 'nodes_manager.key': key, 'nodes_manager.retries': ctx.retries, 'nodes_manager.reconcile': t.reconciles };
    return inSpan(`reconcile ${controller}`, { parent: t.parent, links, attributes }, reconcile);
  }

  /** finished — the key's work is done (a reconcile asked for nothing more): its next enqueue starts afresh. */
  finished(key: string): void {
    this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }
}
