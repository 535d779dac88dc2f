import { describe, expect, it } from '@jest/globals';
import type { CloudEvent } from '@nodes-manager/contracts';
import { EventStreamHub, STREAM_REPLAY_EVENTS } from './event-stream.js';

const ev = (n: number) => ({ id: `e${n}`, type: 'node.changed' }) as unknown as CloudEvent;
const hubWith = (count: number) => {
  const hub = new EventStreamHub();
  for (let i = 1; i <= count; i++) hub.accept(ev(i));
  return hub;
};

describe('EventStreamHub.replaySince', () => {
  it.each([
    ['a client that saw event 3 of 5 gets 4 and 5, in order', 5, (h: EventStreamHub) => `${h.epoch}.3`, ['e4', 'e5']],
    ['a client that saw the last event gets nothing', 5, (h: EventStreamHub) => `${h.epoch}.5`, []],
    ['a client that saw nothing of this epoch yet (seq 0) gets everything kept', 2, (h: EventStreamHub) => `${h.epoch}.0`, ['e1', 'e2']],
  ])('%s', (_row, count, id, expected) => {
    const hub = hubWith(count);
    const r = hub.replaySince(id(hub));
    expect(r.kind === 'replay' ? r.events.map((e) => e.event.id) : r).toEqual(expected);
  });

  it.each([
    ['an id from another gateway process is a reset: gateway_restarted', 3, () => 'deadbeef.2', 'gateway_restarted'],
    ['an id older than the buffer is a reset: too_far_behind', STREAM_REPLAY_EVENTS + 10, (h: EventStreamHub) => `${h.epoch}.5`, 'too_far_behind'],
    ['an id from the future is a reset: unknown_id', 3, (h: EventStreamHub) => `${h.epoch}.9`, 'unknown_id'],
    ['a malformed id is a reset: unknown_id', 3, () => 'not-an-id', 'unknown_id'],
  ])('%s', (_row, count, id, reason) => {
    const hub = hubWith(count);
    expect(hub.replaySince(id(hub))).toEqual({ kind: 'reset', reason });
  });

  it('numbers events in the order it accepts them and hands each to every listener once', () => {
    const hub = new EventStreamHub();
    const a: string[] = [];
    const b: string[] = [];
    hub.listen((e) => a.push(e.id));
    const off = hub.listen((e) => b.push(e.id));
    hub.accept(ev(1));
    off();
    hub.accept(ev(2));
    expect(a).toEqual([`${hub.epoch}.1`, `${hub.epoch}.2`]);
    expect(b).toEqual([`${hub.epoch}.1`]);
  });
});
