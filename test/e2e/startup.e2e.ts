import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestDatabase, TEST_JWT_SECRET, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
import { assertBuilt, runToExit, ServiceExited, spawnService, startService, stopProcess, untilUp } from './harness.js';

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
    const copy = mkdtempSync(join('.tmp', 'build-'));
    const dist = join(copy, 'dist');
    try {
      cpSync('dist', dist, { recursive: true });
      // A build whose migrations were left out: the service's migration list is empty, and its entry point compiled
      // and bundled again from that (scripts/build.mjs, scripts/bundle-entries.mjs), as `npm run build` would have.
      writeFileSync(join(dist, 'migrations/node-sync/index.js'), 'export const migrations = [];\n');
      const { compile } = (await import('../../scripts/compile.mjs' as string)) as { compile: (inputs: string[], to: { file: string }) => void };
      compile(['services/node-sync/src/main.ts'], { file: join(dist, 'services/node-sync/src/main.js') });
      const { bundleEntries } = (await import('../../scripts/bundle-entries.mjs' as string)) as { bundleEntries: (root: string, entries: string[]) => Promise<string[]> };
      await bundleEntries(copy, ['dist/services/node-sync/src/main.js']);
      const { code, output } = await runToExit('node-sync', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5' }), join(dist, 'services'));
      expect(code).not.toBe(0);
      expect(output).toContain('NO_MIGRATIONS_IN_BUILD');
      expect(output).toContain('TABLE_MISSING: table nodes.nodes does not exist');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('refuses a lying migrations table (the initial migration recorded, its tables missing) with exit 78 and what does not match', async () => {
    const lying = await createTestDatabase();
    try {
      await lying.query(`CREATE SCHEMA nodes`);
      await lying.query(`CREATE TABLE nodes.migrations_karpenter_gateway (id serial PRIMARY KEY, "timestamp" bigint NOT NULL, name varchar NOT NULL)`);
      await lying.query(`INSERT INTO nodes.migrations_karpenter_gateway ("timestamp", name) VALUES (1764500000000, 'KarpenterGatewayInitial1764500000000')`);
      const { code, output } = await runToExit('karpenter-gateway', splitSystemEnv({ databaseUrl: lying.url, kube }, {}));
      expect(output).toContain('does not match its recorded migrations');
      expect(output).toContain('TABLE_MISSING: table nodes.nodepool_changes does not exist, though migration KarpenterGatewayInitial1764500000000 that creates it is recorded as applied');
      expect(output).toContain('TABLE_MISSING: table nodes.outbox_karpenter_gateway does not exist');
      expect(code).toBe(78);
      // Nothing pending was applied on top of the lie.
      const history = await lying.query<{ name: string }>(`SELECT name FROM nodes.migrations_karpenter_gateway`);
      expect(history.map((r) => r.name)).toEqual(['KarpenterGatewayInitial1764500000000']);
    } finally {
      await lying.drop();
    }
  }, 60_000);

  it('refuses a maintenance window it cannot read, naming the variable, with exit code 78', async () => {
    const { code, output } = await runToExit('scheduler-scoring', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5', DISRUPTION_WINDOWS: '0 2 * * 1-5 3h Europe/Atlantis' }));
    expect(code).toBe(78);
    expect(output).toContain('DISRUPTION_WINDOWS: window 1 ("0 2 * * 1-5 3h Europe/Atlantis"): "Europe/Atlantis" is not an IANA time zone');
  });

  it('refuses a retention shorter than the windows that read the table, or one it cannot read, naming the variables, with exit code 78', async () => {
    const short = await runToExit('uncordon', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5', RETENTION_REBALANCE_LEDGER_DAYS: '5' }));
    expect(short.code).toBe(78);
    expect(short.output).toMatch(/RETENTION_REBALANCE_LEDGER_DAYS: keeps rebalance_ledger 5 days, shorter than what reads it: must be at least STEERING_WINDOW_HOURS \(168 = 7 days\) and REBALANCE_FIGURES_DAYS \(30 = 30 days\)/);
    const bad = await runToExit('karpenter-gateway', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5', RETENTION_APPROVALS_DAYS: 'forever' }));
    expect(bad.code).toBe(78);
    expect(bad.output).toContain('RETENTION_APPROVALS_DAYS: must be a number');
  });
});

/**
 * The harness the end-to-end and fault suites start service processes with: a process that dies at start fails the
 * start at once, naming it and showing what it printed; a port another process holds is never taken for the
 * service's own, and a start that lost its port to another process starts again on another one.
 */
describe('the process harness', () => {
  it('fails at once when the process exits during its start, naming it and showing its last output', async () => {
    const t0 = performance.now();
    const err = await startService('uncordon', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: 'often' }), { name: 'uncordon under test', timeoutMs: 90_000 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ServiceExited);
    expect(err!.message).toMatch(/^uncordon under test exited with code 78 before it was up; its last output:\n/);
    expect(err!.message).toContain('SCAN_INTERVAL_SECONDS: must be a number');
    // At once: well before the 90 s it was given (a process start alone takes seconds of CPU on a loaded machine).
    expect(performance.now() - t0).toBeLessThan(45_000);
  });

  it('does not take another process on its port for the service, and says the port was in use', async () => {
    // Another process holds the port and answers /healthz as a service would.
    const squatter = http.createServer((_req, res) => res.end('{"status":"ok"}'));
    await new Promise<void>((r) => squatter.listen(0, '0.0.0.0', () => r()));
    const port = (squatter.address() as AddressInfo).port;
    try {
      const p = spawnService('node-sync', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5' }), port);
      const err = await untilUp(p).then(
        () => undefined,
        (e: unknown) => e as ServiceExited,
      );
      await stopProcess(p);
      expect(err).toBeInstanceOf(ServiceExited);
      expect(err!.portInUse).toBe(true);
    } finally {
      await new Promise((r) => squatter.close(r));
    }

    const p = await startService('node-sync', splitSystemEnv({ databaseUrl: db.url, kube }, { SCAN_INTERVAL_SECONDS: '5' }));
    try {
      expect((await fetch(`http://127.0.0.1:${p.port}/healthz`)).ok).toBe(true);
    } finally {
      await stopProcess(p);
    }
  });
});
