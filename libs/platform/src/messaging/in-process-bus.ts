import type { CloudEvent } from '@nodes-manager/contracts';
import type { EventPublisher } from './event-publisher.js';

/**
 * InProcessEventBus — the all-in-one mode's stand-in for the `nodes.events` exchange when there is no RabbitMQ: what
 * the services publish reaches every tap (the gateway's live stream, the demo's narration, tests) as it is published.
 */
export class InProcessEventBus implements EventPublisher {
  private readonly taps: ((ev: CloudEvent) => void)[] = [];

  async publish(events: readonly CloudEvent[]): Promise<void> {
    for (const ev of events) for (const t of this.taps) t(ev);
  }

  /** tap — observe every event (the live stream, tests, demo narration); returns the way to stop. */
  tap(fn: (ev: CloudEvent) => void): () => void {
    this.taps.push(fn);
    return () => void this.taps.splice(this.taps.indexOf(fn), 1);
  }
}
