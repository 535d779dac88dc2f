import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
import { DIST, runToExit, startService } from '../e2e/harness.js';

/**
 * 6. A schema changed behind a service's back: the service refuses to start (exit 78) and names the table and
 * the column, instead of failing later on a half-understood row (docs/reliability.md).
 */
let db: TestDatabase;
let kube: KubeSim;
const dist = process.env['FAULT_DIST'] ?? DIST;
const env = () => splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5' });

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim();
  // A first start migrates the database; SIGTERM ends it cleanly.
  const p = await startService('node-sync', env(), { dist });
  const code = await new Promise<number | null>((resolve) => {
    p.child.once('exit', (c) => resolve(c));
    p.child.kill('SIGTERM');
  });
  expect(code).toBe(0);
}, 120_000);

afterAll(async () => {
  await kube?.stop();
  await db?.drop();
});

const start = () => runToExit('node-sync', env(), dist);

describe('6. a schema changed behind the service', () => {
  it.each([
    ['a column dropped', 'ALTER TABLE nodes.nodes DROP COLUMN annotations', 'ALTER TABLE nodes.nodes ADD COLUMN annotations jsonb NOT NULL DEFAULT \'{}\'', 'annotations', 'COLUMN_MISSING'],
    ['a jsonb column made json', 'ALTER TABLE nodes.nodes ALTER COLUMN labels TYPE json USING labels::json', 'ALTER TABLE nodes.nodes ALTER COLUMN labels TYPE jsonb USING labels::jsonb', 'labels', 'COLUMN_TYPE_MISMATCH'],
  ])('%s: exit 78, naming the table and the column', async (_what, tamper, undo, column, problem) => {
    await db.query(tamper);
    try {
      const { code, output } = await start();
      expect(code).toBe(78);
      // `column <table>.<column>`: the table is `nodes` (in schema `nodes`).
      expect(output).toContain(`${problem}: column nodes.${column}`);
    } finally {
      await db.query(undo);
    }
  }, 90_000);
});
