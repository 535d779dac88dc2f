import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
import { assertBuilt, ServiceExited, spawnService, startService, stopProcess, untilUp } from './harness.js';

/**
 * The harness the end-to-end and fault suites start service processes with: a process that dies at start fails the
 * start at once, naming it and showing what it printed; a port another process holds is never taken for the
 * service's own, and a start that lost its port to another process starts again on another one.
 */
let db: TestDatabase;
let kube: KubeSim;
beforeAll(async () => {
  assertBuilt();
  db = await createTestDatabase();
  kube = await startKubeSim();
});
afterAll(async () => {
  await kube?.stop();
  await db?.drop();
});

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
    expect(performance.now() - t0).toBeLessThan(15_000);
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
