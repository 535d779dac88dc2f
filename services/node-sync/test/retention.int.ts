import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DAY_MS, startRetention, testEnv, type RetentionHarness } from '@nodes-manager/platform/testing';
import { migrations } from '../../../migrations/node-sync/index.js';
import { entities } from '../src/adapters/outbound/node-sync.entities.js';
import { loadNodeSyncConfig } from '../src/config.js';
import { nodeSyncRetention } from '../src/retention.js';

/**
 * node-sync's retention on its migrated schema (docs/retention.md): deleted pods after 24 h, deleted nodes after 7 days,
 * the lifetimes of gone nodes after 90; live ones never.
 */
const config = loadNodeSyncConfig(testEnv('postgres://unused/x'));
let h: RetentionHarness;

beforeAll(async () => {
  h = await startRetention({ service: 'node-sync', entities, migrations, spec: nodeSyncRetention, config });
});
afterAll(async () => {
  await h?.stop();
});

describe('node-sync retention', () => {
  it("every rule's time column leads an index", async () => {
    expect(await h.unindexed()).toEqual([]);
  });

  it('deletes pods and nodes deleted longer ago than their retention, never a live one', async () => {
    await h.row('nodes', { name: 'gone', deleted_at: h.clock.now() });
    await h.row('nodes', { name: 'live' });
    await h.row('pods', { name: 'gone', deleted_at: h.clock.now() });
    await h.row('pods', { name: 'live' });
    await h.row('node_lifetimes', { name: 'gone', deleted_at: h.clock.now() });
    await h.row('node_lifetimes', { name: 'live' });

    await h.stepPast(23 * 3_600_000);
    expect(await h.left('pods', 'name')).toEqual(['gone', 'live']);
    await h.stepPast(2 * 3_600_000);
    expect(await h.left('pods', 'name')).toEqual(['live']);
    expect(await h.left('nodes', 'name')).toEqual(['gone', 'live']);
    await h.stepPast(7 * DAY_MS);
    expect(await h.left('nodes', 'name')).toEqual(['live']);
    expect(await h.left('node_lifetimes', 'name')).toEqual(['gone', 'live']);
    await h.stepPast(90 * DAY_MS);
    expect(await h.left('node_lifetimes', 'name')).toEqual(['live']);
    await h.stepPast(365 * DAY_MS);
    expect([await h.left('nodes', 'name'), await h.left('pods', 'name')]).toEqual([['live'], ['live']]);
    expect([await h.deleted('nodes'), await h.deleted('pods')]).toEqual([1, 1]);
  });
});
