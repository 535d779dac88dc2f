import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { waitFor } from '@nodes-manager/platform/testing';
import { assertBuilt } from './harness.js';

/**
 * The README's first command, as a newcomer runs it: no DATABASE_URL, no RABBITMQ_URL, no cluster, no AWS. The test
 * reads the printed address and token like a person would, and checks the story through the public API.
 */
let child: ChildProcess | undefined;
let out = '';
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
});

const line = (re: RegExp) => out.match(re)?.[1];

describe('npm run demo', () => {
  it('comes up on its embedded defaults and completes the rebalance story on its own within two minutes', async () => {
    assertBuilt();
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const started = Date.now();
    child = spawn(process.execPath, ['dist/all-in-one/src/demo.js', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));

    await waitFor(() => out.includes('story complete.') || out.includes('story did not complete') || child!.exitCode !== null, 'the story to end', 150_000, 500);
    const storySeconds = (Date.now() - started) / 1000;
    expect(out).toContain('story complete.');
    expect(storySeconds).toBeLessThan(120);

    const url = line(/serving the API at (http:\/\/\S+)\/api\/v1/)!;
    const token = line(/demo token \(read\+write scope, 24 h\): (\S+)/)!;
    const rebalanced = line(/Spot rebalance recommendation for (\S+) \(/)!;
    const manual = line(/An operator cordons (\S+) by hand/)!;
    const dataDir = line(/data in (\S+?)[,)]/)!;
    expect([url, token, rebalanced, manual, dataDir].every(Boolean)).toBe(true);
    // The story reads the node after the uncordon is visible: it reports the state after, never the cordon before.
    expect(line(new RegExp(`GET /api/v1/nodes/${rebalanced.replace(/[.]/g, '\\.')}: state (\\w+)`))).toBe('Ready');
    // The first line to open once it serves is the console, with the token in the fragment (not in a query string).
    const ready = out.slice(out.indexOf('[demo] open the console:'));
    expect(ready.split('\n')[0]).toBe(`[demo] open the console: ${url}/#token=${token}`);
    expect(ready.indexOf('open the console')).toBeLessThan(ready.indexOf('serving the API at'));
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const api = async (path: string) => {
      const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}` } });
      expect(`${path} ${res.status}`).toBe(`${path} 200`);
      return res.json() as Promise<any>;
    };

    // The uncordon happened, with its scaling event and evidence…
    const events = await api(`/api/v1/events?node=${rebalanced}`);
    const uncordon = events.items.find((e: { action: string }) => e.action === 'uncordon');
    expect(uncordon).toBeDefined();
    const node = await api(`/api/v1/nodes/${rebalanced}`);
    expect(node.unschedulable).toBe(false);

    // …and the manual cordon did not: it is still cordoned, and the API says why.
    const cordons = await api('/api/v1/cordons');
    const kept = cordons.items.find((c: { node: string }) => c.node === manual);
    expect(kept).toMatchObject({ decision: 'skip', reason: 'CORDONED_BY_OTHER_MANAGER' });
    expect(cordons.items.find((c: { node: string }) => c.node === rebalanced)).toBeUndefined();
    expect((await api(`/api/v1/events?node=${manual}`)).items.filter((e: { action: string }) => e.action === 'uncordon')).toEqual([]);

    // Steering over the seeded replay (said so in the log): the replay's bad pool in avoid, and in plan mode the
    // NodePool plan that keeps it out, with its drift forecast — nothing written.
    expect(out).toMatch(/ledger history: a seeded replay \(seed 42\) of \d+ past rebalances/);
    expect(out).toContain('steering story complete');
    const bad = out.match(/replay (\S+) in (\S+): 12 of 14 rebalances/)!;
    const steering = await api('/api/v1/steering/pools');
    expect(steering).toMatchObject({ mode: 'plan', karpenterInstalled: true });
    expect(steering.pools.find((p: { instanceType: string; zone: string }) => p.instanceType === bad[1] && p.zone === bad[2])).toMatchObject({ state: 'avoid' });
    const planned = steering.nodePools.find((np: { changes: string[] }) => np.changes.includes('narrow'));
    expect(planned).toMatchObject({ status: 'planned' });
    expect(planned.drift.total).toBeGreaterThan(0);
    expect(planned.drift.onPurpose).toBeGreaterThan(0);

    // Metrics count the uncordon.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const counted = metrics.split('\n').filter((l) => l.startsWith('nodes_manager_uncordons_total{') && /result="(uncordoned|success|ok)"/.test(l));
    expect(counted.length).toBeGreaterThan(0);
    expect(counted.reduce((n, l) => n + Number(l.split(' ').pop()), 0)).toBeGreaterThanOrEqual(1);
    expect(metrics).toContain('nodes_manager_outbox_pending');

    // Then the rebalance ledger story (compressed time): the ledger lists the rebalances with their outcomes.
    await waitFor(() => out.includes('rebalance ledger story complete.') || out.includes('rebalance ledger story did not complete'), 'the ledger story to end', 150_000, 500);
    expect(out).toContain('rebalance ledger story complete.');
    const ledger = await api('/api/v1/rebalances?limit=100');
    const outcomes = new Set(ledger.items.map((r: { outcome: string }) => r.outcome));
    expect(outcomes.has('interrupted') && outcomes.has('survived')).toBe(true);
    expect((await api('/api/v1/rebalances/summary')).cluster.interrupted).toBeGreaterThanOrEqual(1);

    // Ctrl-C stops it and removes the demo data.
    expect(existsSync(dataDir)).toBe(true);
    child.kill('SIGINT');
    await new Promise((r) => child!.once('exit', r));
    expect(existsSync(dataDir)).toBe(false);
  }, 360_000);
});
