import type { CloudEvent } from '@nodes-manager/contracts';
import type { EventPublisher } from './event-publisher.js';
import { matchesBinding } from './routing.js';

type Handler = (ev: CloudEvent) => Promise<void>;

/**
 * InProcessEventBus — the all-in-one mode's stand-in for the `nodes.events` exchange: same topic semantics
 * (`*` one word, `#` any), delivery after publish returns, each subscriber retried a bounded number of times.
 */
export class InProcessEventBus implements EventPublisher {
  private readonly subs: { bindings: readonly string[]; handler: Handler }[] = [];
  private readonly taps: ((ev: CloudEvent) => void)[] = [];

  async publish(events: readonly CloudEvent[]): Promise<void> {
    for (const ev of events) {
      for (const t of this.taps) t(ev);
      for (const s of this.subs) {
        if (s.bindings.some((b) => matchesBinding(b, ev.type))) setImmediate(() => void deliver(s.handler, ev, 5));
      }
    }
  }

  subscribe(bindings: readonly string[], handler: Handler): void {
    this.subs.push({ bindings, handler });
  }

  /** tap — observe every event (tests, demo narration). */
  tap(fn: (ev: CloudEvent) => void): () => void {
    this.taps.push(fn);
    return () => this.taps.splice(this.taps.indexOf(fn), 1);
  }
}

async function deliver(handler: Handler, ev: CloudEvent, attempts: number): Promise<void> {
  for (let i = 1; i <= attempts; i++) {
    try {
      await handler(ev);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100 * 2 ** i));
    }
  }
}
