import { describe, expect, it } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { NodeEventRecorder, type NodeEventRepeat, type NodeEventWrites } from './node-events.js';

/** FakeEventWrites — records every write and keeps the Events as the API server would (a repeat of a missing one is a 404). */
class FakeEventWrites implements NodeEventWrites {
  readonly events = new Map<string, k8s.CoreV1Event>();
  readonly calls: string[] = [];
  async create(body: k8s.CoreV1Event): Promise<void> {
    this.calls.push(`create ${body.involvedObject.name} ${body.reason}`);
    this.events.set(body.metadata.name!, body);
  }
  async repeat(name: string, patch: NodeEventRepeat): Promise<boolean> {
    this.calls.push(`repeat ${name} ${patch.count}`);
    const e = this.events.get(name);
    if (!e) return false;
    this.events.set(name, { ...e, ...patch });
    return true;
  }
}

const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 12, 0, s));

describe('NodeEventRecorder', () => {
  it('creates an Event the first time, then counts the same reason on the same node on that Event', async () => {
    const api = new FakeEventWrites();
    const rec = new NodeEventRecorder(api);
    const first = await rec.record({ name: 'n1', uid: 'u1' }, 'DisruptionBlockedByPDB', 'kept by default/db', at(0), 'Warning');
    const again = await rec.record({ name: 'n1', uid: 'u1' }, 'DisruptionBlockedByPDB', 'kept by shop/cart', at(30), 'Warning');
    expect(first).toEqual({ action: 'created', name: expect.stringMatching(/^n1\./) });
    expect(again).toEqual({ action: 'repeated', name: first.name, count: 2 });
    expect([...api.events.values()]).toEqual([
      expect.objectContaining({
        involvedObject: { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u1' },
        reason: 'DisruptionBlockedByPDB',
        message: 'kept by shop/cart',
        type: 'Warning',
        count: 2,
        firstTimestamp: at(0),
        lastTimestamp: at(30),
        source: { component: 'nodes-manager' },
      }),
    ]);
  });

  it.each([
    ['another reason on the same node', { name: 'n1', uid: 'u1' }, 'Uncordoned'],
    ['the same reason on another node', { name: 'n2', uid: 'u2' }, 'DisruptionBlockedByPDB'],
    ['the same reason on a node re-created under the same name', { name: 'n1', uid: 'u1-new' }, 'DisruptionBlockedByPDB'],
  ])('%s is another Event', async (_, node, reason) => {
    const api = new FakeEventWrites();
    const rec = new NodeEventRecorder(api);
    await rec.record({ name: 'n1', uid: 'u1' }, 'DisruptionBlockedByPDB', 'm', at(0));
    await rec.record(node, reason, 'm', at(1));
    expect(api.calls.map((c) => c.split(' ')[0])).toEqual(['create', 'create']);
    expect(api.events.size).toBe(2);
  });

  it('creates the Event again when the one it wrote has gone (expired or deleted)', async () => {
    const api = new FakeEventWrites();
    const rec = new NodeEventRecorder(api);
    const first = await rec.record({ name: 'n1' }, 'R', 'm', at(0));
    api.events.delete(first.name);
    const again = await rec.record({ name: 'n1' }, 'R', 'm', at(1));
    expect(again.action).toBe('created');
    expect(api.calls).toEqual(['create n1 R', `repeat ${first.name} 2`, 'create n1 R']);
  });

  it('remembers at most maxEntries Events, forgetting the longest unused first', async () => {
    const api = new FakeEventWrites();
    const rec = new NodeEventRecorder(api, 2);
    await rec.record({ name: 'a' }, 'R', 'm', at(0));
    await rec.record({ name: 'b' }, 'R', 'm', at(1));
    await rec.record({ name: 'a' }, 'R', 'm', at(2)); // a is now the most recent
    await rec.record({ name: 'c' }, 'R', 'm', at(3)); // forgets b
    expect((await rec.record({ name: 'a' }, 'R', 'm', at(4))).action).toBe('repeated');
    expect((await rec.record({ name: 'b' }, 'R', 'm', at(5))).action).toBe('created');
  });
});
