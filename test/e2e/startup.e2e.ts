import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, TEST_JWT_SECRET, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
import { assertBuilt, runToExit } from './harness.js';

let db: TestDatabase;
let kube: KubeSim;
beforeAll(async () => {
  assertBuilt();
  db = await createTestDatabase();
  kube = await startKubeSim();
});
afterAll(async () => {
  await kube.stop();
  await db.drop();
});

describe('a service refuses to start, and says why', () => {
  it('reports three bad variables in one error and exits non-zero', async () => {
    const { code, output } = await runToExit('uncordon', splitSystemEnv({ databaseUrl: 'mysql://db/nodes' }, { SCAN_INTERVAL_SECONDS: 'often', AUTO_UNCORDON_MAX_PER_CYCLE: '0' }));
    expect(code).not.toBe(0);
    expect(output).toContain('3 configuration problems');
    expect(output).toContain('DATABASE_URL: must be a URL with scheme postgres or postgresql');
    expect(output).toContain('SCAN_INTERVAL_SECONDS: must be a number');
    expect(output).toContain('AUTO_UNCORDON_MAX_PER_CYCLE: must be at least 1');
    expect(output).not.toContain(TEST_JWT_SECRET);
  });

  it('refuses to start when the build carries no migrations, naming the problem', async () => {
    // Inside the checkout, so the copy still resolves node_modules.
    mkdirSync('.tmp', { recursive: true });
    const dist = mkdtempSync(join('.tmp', 'dist-'));
    try {
      cpSync('dist', dist, { recursive: true });
      // A build whose migrations were left out: the service's migration list is empty.
      writeFileSync(join(dist, 'migrations/node-sync/index.js'), 'export const migrations = [];\n');
      const { code, output } = await runToExit('node-sync', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5' }), join(dist, 'services'));
      expect(code).not.toBe(0);
      expect(output).toContain('NO_MIGRATIONS_IN_BUILD');
      expect(output).toContain('TABLE_MISSING: table nodes.nodes does not exist');
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('refuses a maintenance window it cannot read, naming the variable, with exit code 78', async () => {
    const { code, output } = await runToExit('scheduler-scoring', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5', DISRUPTION_WINDOWS: '0 2 * * 1-5 3h Europe/Atlantis' }));
    expect(code).toBe(78);
    expect(output).toContain('DISRUPTION_WINDOWS: window 1 ("0 2 * * 1-5 3h Europe/Atlantis"): "Europe/Atlantis" is not an IANA time zone');
  });
});
