import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { ApprovalView, CommandMeta } from '@nodes-manager/contracts';
import { ApprovalsController, ApprovalStore, createDataSource, FakeClock, JsonLogger, Outbox, runMigrations, type ServiceDatabaseSpec } from '@nodes-manager/platform';
import { createTestDatabase, type TestDatabase } from '@nodes-manager/platform/testing';
import { migrations } from '../../../migrations/karpenter-gateway/index.js';

/**
 * The approvals controller on real Postgres (karpenter-gateway's approvals table) and a FakeClock stepped in
 * milliseconds: when a pending request expires, when an approved one runs, what happens to one a dead run left
 * executing. Each test makes its own controller and subjects.
 */

const MIN = 60_000;
const TTL_MS = 10 * MIN;
/** Not a divisor of the TTL: a deadline never falls on a listing, so only the exact requeue can expire a request on time. */
const SCAN_MS = 45_000;
const logger = new JsonLogger('karpenter-gateway', 'error', () => undefined);

let db: TestDatabase;
let ds: DataSource;

beforeAll(async () => {
  db = await createTestDatabase('nm_approvals');
  const spec: ServiceDatabaseSpec = { service: 'karpenter-gateway', url: db.url, entities: [], migrations };
  ds = createDataSource(spec);
  await ds.initialize();
  await runMigrations(ds, spec);
}, 60_000);
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const aStore = (clock: FakeClock) =>
  new ApprovalStore({ ds, outbox: new Outbox('karpenter-gateway'), clock, logger, service: 'karpenter-gateway', kind: 'consolidate', table: 'consolidation_approvals', rules: { distinctApprover: false }, ttlMinutes: TTL_MS / MIN });

let subjects = 0;
const meta = (actor: string): CommandMeta => ({ actor, correlationId: `c-${actor}` });

/**
 * anOwner — a store and its controller on a FakeClock. With `windowOpensAt`, the controller carries out approved
 * requests: the executor waits until then (as a maintenance window), then claims and finishes each, recording when.
 */
function anOwner(o: { windowOpensAt?: number } = {}) {
  const clock = new FakeClock('2026-03-11T00:30:00Z');
  const t0 = clock.now().getTime();
  const store = aStore(clock);
  const executed: { id: string; at: number; actor: string }[] = [];
  /** This owner's requests: the table is shared by the tests, and each executor carries out only its own. */
  const mine = new Set<string>();
  const executor =
    o.windowOpensAt === undefined
      ? undefined
      : {
          execute: async (a: ApprovalView, m: CommandMeta) => {
            if (!mine.has(a.id) || clock.now().getTime() - t0 < o.windowOpensAt!) return;
            if (!(await store.claim(a.id))) return;
            executed.push({ id: a.id, at: clock.now().getTime() - t0, actor: m.actor });
            await store.finish(a.id, [{ node: 'node-0', outcome: 'started', reason: 'planned_removal', detail: 'NodeClaim claim-0 deleted' }], m);
          },
        };
  const approvals = new ApprovalsController({ service: 'karpenter-gateway', store, clock, logger, resyncMs: SCAN_MS, actor: 'system:karpenter-gateway', ...(executor ? { executor } : {}) });
  const request = async () => {
    const a = await store.request({ subject: `pool-${++subjects}`, reason: 'test', planId: null, nodes: [{ node: 'node-0', nodePool: 'general', reason: 'underutilized' }] }, meta('alice'));
    mine.add(a.id);
    return a;
  };
  const status = async (id: string) => (await store.get(id)).status;
  const settled = () => approvals.controller.settled();
  const elapsed = () => clock.now().getTime() - t0;
  return { clock, store, approvals, executed, request, status, settled, elapsed };
}

describe('ApprovalsController: expiry (FakeClock, in milliseconds)', () => {
  it.each([
    ['a millisecond before its deadline: still pending', TTL_MS - 1, 'pending'],
    ['at its deadline: expired', TTL_MS, 'expired'],
    ['long after: expired once', TTL_MS * 3, 'expired'],
  ])('a request left alone, %s', async (_, ms, expected) => {
    const { clock, approvals, request, status, settled } = anOwner();
    approvals.start();
    const a = await request();
    await settled();
    await clock.step(ms);
    expect(await status(a.id)).toBe(expected);
    const events = await ds.query(`SELECT count(*)::int AS n FROM nodes.outbox_karpenter_gateway WHERE type = 'approval.expired' AND payload->'data'->>'approvalId' = $1`, [a.id]);
    expect(events[0].n).toBe(expected === 'expired' ? 1 : 0);
    await approvals.stop();
  });

  it('a request another replica made (no notice here) is found at the next listing and still expires exactly at its deadline', async () => {
    const { clock, approvals, status, settled } = anOwner();
    approvals.start();
    await settled();
    const other = aStore(clock);
    const a = await other.request({ subject: `pool-${++subjects}`, reason: 'test', planId: null, nodes: [] }, meta('bob'));
    await clock.step(TTL_MS - 1);
    expect(await status(a.id)).toBe('pending');
    await clock.step(1);
    expect(await status(a.id)).toBe('expired');
    await approvals.stop();
  });

  it('a request decided a millisecond before its deadline never expires', async () => {
    const { clock, store, approvals, request, status, settled } = anOwner();
    approvals.start();
    const a = await request();
    await settled();
    await clock.step(TTL_MS - 1);
    await store.decide(a.id, 'reject', meta('bob'));
    await clock.step(TTL_MS);
    expect(await status(a.id)).toBe('rejected');
    await approvals.stop();
  });

  it('a controller that starts after a deadline (a restart, a new leader) expires the request at once', async () => {
    const { clock, approvals, request, status, settled } = anOwner();
    const a = await request();
    await clock.step(TTL_MS + 5 * MIN);
    expect(await status(a.id)).toBe('pending');
    approvals.start();
    await settled();
    expect(await status(a.id)).toBe('expired');
    await approvals.stop();
  });
});

describe('ApprovalsController: approved requests (FakeClock, in milliseconds)', () => {
  it('approved inside its window: carried out at once, as its approver, by the replica that answered the approval', async () => {
    const { store, approvals, executed, request, status, settled } = anOwner({ windowOpensAt: 0 });
    approvals.start();
    const a = await request();
    await store.decide(a.id, 'approve', meta('bob'));
    await settled();
    expect(executed).toEqual([{ id: a.id, at: 0, actor: 'bob' }]);
    expect(await status(a.id)).toBe('executed');
    await approvals.stop();
  });

  it.each([
    ['a window that opens on a listing', 5 * SCAN_MS],
    ['a window that opens between two listings', 5 * SCAN_MS + 12_345],
  ])('approved outside its window: waits, and runs within one scan interval of %s, never before', async (_, opensAt) => {
    const { clock, store, approvals, executed, request, status, settled, elapsed } = anOwner({ windowOpensAt: opensAt });
    approvals.start();
    const a = await request();
    await store.decide(a.id, 'approve', meta('bob'));
    await settled();
    await clock.step(opensAt - 1 - elapsed());
    expect(executed).toEqual([]);
    expect(await status(a.id)).toBe('approved');
    await clock.step(SCAN_MS + 1);
    expect(executed).toHaveLength(1);
    expect(executed[0]!.at).toBeGreaterThanOrEqual(opensAt);
    expect(executed[0]!.at - opensAt).toBeLessThanOrEqual(SCAN_MS);
    expect(await status(a.id)).toBe('executed');
    // An approved request does not expire while it waits: its deadline was for the decision.
    expect(opensAt).toBeLessThan(TTL_MS);
    await approvals.stop();
  });

  it('one a dead run left executing is failed as interrupted at the next listing, and run by nobody', async () => {
    const { clock, store, approvals, executed, request, status, settled } = anOwner({ windowOpensAt: 0 });
    const a = await request();
    await store.decide(a.id, 'approve', meta('bob'));
    expect(await store.claim(a.id)).toBe(true); // a run that then died
    approvals.start();
    await settled();
    expect(await status(a.id)).toBe('failed');
    expect((await store.get(a.id)).results).toEqual([expect.objectContaining({ outcome: 'failed', reason: 'interrupted' })]);
    await clock.step(SCAN_MS);
    expect(executed).toEqual([]);
    await approvals.stop();
  });

  it('an expiring-only controller leaves approved and executing requests to their owner', async () => {
    const { clock, store, approvals, request, status, settled } = anOwner();
    const [x, y] = [await request(), await request()];
    await store.decide(x.id, 'approve', meta('bob'));
    await store.decide(y.id, 'approve', meta('bob'));
    await store.claim(y.id);
    approvals.start();
    await settled();
    await clock.step(TTL_MS * 2);
    expect([await status(x.id), await status(y.id)]).toEqual(['approved', 'executing']);
    await approvals.stop();
  });
});
