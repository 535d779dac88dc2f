import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signToken } from '@nodes-manager/platform';
import { TEST_JWT_SECRET, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import type { Ec2Sim, KubeSim } from '@nodes-manager/sim';
import type { AllInOne } from '../../all-in-one/src/all-in-one.js';
import { CONSOLE_CSP } from '../../services/api-gateway/src/adapters/inbound/console-static.js';
import { GRACE_SECONDS, launchBrowser, newPage, pageErrors, published, shot, startSystem, unreadable } from './support.js';

/**
 * The operator console in a real headless Chromium (Debian's `chromium`, driven by playwright-core) against the
 * all-in-one system on the Kubernetes and EC2 simulators: sign-in, the Cordons view following a Spot rebalance cordon
 * to its uncordon without a reload, the Optimize view's savings, the Spot and Pools views, Approvals, failures and repeats, the pause banner (a 5,000-node fleet: fleet-5000.int.ts). Screenshots of every view go
 * to .tmp/screenshots/ (gitignored). One browser, one shared system.
 */
let browser: Browser;
let consoleDir: string;
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: AllInOne;

beforeAll(async () => {
  ({ browser, consoleDir } = await launchBrowser());
  // Fences wait for approval (DISRUPTION_APPROVAL for `fence`): the Approvals view has requests to decide.
  ({ db, kube, ec2, system } = await startSystem(consoleDir, { nodes: 24, fencing: true, env: { DISRUPTION_APPROVAL: 'automatic,fence=manual' } }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
}, 60_000);

describe('the console is served by the gateway', () => {
  it('serves index.html and its bundled assets at / with a strict CSP and no token, and nothing from elsewhere', async () => {
    const res = await fetch(`${system.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    const links = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    const assets = links.filter((l) => l !== 'data:,'); // the empty favicon
    expect(assets.length).toBe(2);
    for (const a of assets) {
      expect(a.startsWith('/assets/')).toBe(true);
      const r = await fetch(system.url + a);
      expect(`${a} ${r.status} ${r.headers.get('cache-control')}`).toBe(`${a} 200 public, max-age=31536000, immutable`);
      expect(await r.text()).not.toMatch(/https?:\/\/(?!www\.w3\.org|reactjs\.org|react\.dev|github\.com)[a-z0-9.-]+\.[a-z]{2,}\/[^\s"']*\.(js|css)/);
    }
    // The API stays the API: an unknown path is still its coded 404, and a route still needs a token.
    expect((await fetch(`${system.url}/api/v1/nope`)).status).toBe(404);
    expect((await fetch(`${system.url}/api/v1/cordons`)).status).toBe(401);
  });
});

describe('sign-in', () => {
  it('signs in from the URL fragment, keeps the token in session storage only, and clears it from the address bar', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await newPage(ctx);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${system.url}/#token=${testToken('nodes:read nodes:write', 'erin')}`);
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    await page.locator('[data-testid=fleet-row]').first().waitFor();
    expect(page.url()).toBe(`${system.url}/#/fleet`);
    expect(await page.evaluate("sessionStorage.getItem('nodes-manager.token')")).toBeTruthy();
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(requests.filter((u) => /[?&]token=/.test(u))).toEqual([]);
    await expect(page.locator('header .who').textContent()).resolves.toContain('erin');
    await shot(page, '01-fleet');
    await page.locator('[data-testid=fleet-row]').first().click();
    await page.locator('[data-testid=node-detail] h3', { hasText: 'Pods' }).waitFor();
    await shot(page, '02-fleet-node-detail');
    await ctx.close();
  });

  it('signs in with the field; a refused token returns to sign-in with the gateway’s reason', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    const page = await newPage(ctx, errors);
    await page.goto(`${system.url}/`);
    await page.getByLabel('Bearer token').waitFor();
    await shot(page, '00-sign-in');
    await page.getByLabel('Bearer token').fill(signToken('not-the-secret-0123456789abcdef', { sub: 'mallory', scope: 'nodes:write' }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/refused this token: invalid signature/);
    await page.getByLabel('Bearer token').fill(testToken('nodes:read', 'rita'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    await expect(page.locator('header .who').textContent()).resolves.toContain('rita (read-only)');
    // A token that expires (or is revoked) sends the user back to sign-in with the reason, on the next call.
    await page.evaluate(`sessionStorage.setItem('nodes-manager.token', '${signToken(TEST_JWT_SECRET, { sub: 'rita', scope: 'nodes:read' }, -120)}')`);
    await page.reload();
    await page.getByTestId('signin-reason').waitFor();
    await expect(page.getByTestId('signin-reason').textContent()).resolves.toMatch(/Signed out: jwt expired/);
    await ctx.close();
    // The refused tokens' 401s are the only errors the browser logged.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !e.includes('status of 401 (Unauthorized)'))).toEqual([]);
  });
});

describe('the operator’s views, live', () => {
  let ctx: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await newPage(ctx);
    await page.goto(`${system.url}/#token=${testToken('nodes:read nodes:write', 'erin')}`);
    await page.getByTestId('live-status').filter({ hasText: 'live' }).waitFor();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('Cordons: a Spot rebalance cordon counts down and flips to uncordoned without a reload; a manual cordon stays, with its reason', async () => {
    const nodes = (await (await fetch(`${system.url}/api/v1/nodes?limit=100&state=Ready`, { headers: { authorization: `Bearer ${testToken()}` } })).json()) as { items: { name: string; capacityType: string }[] };
    const spot = nodes.items.find((n) => n.capacityType === 'spot')!.name;
    const manual = nodes.items.find((n) => n.name !== spot)!.name;
    await page.keyboard.press('2');
    await page.getByRole('heading', { name: 'Cordons' }).waitFor();
    await page.evaluate('window.__sameDocument = true');
    kube.scenario.cordonAsNth(spot, { taint: true });
    kube.scenario.cordonAsKubectl(manual);

    const spotRow = page.locator(`[data-testid=cordon-row][data-node="${spot}"]`);
    const manualRow = page.locator(`[data-testid=cordon-row][data-node="${manual}"]`);
    await spotRow.and(page.locator('[data-verdict=wait]')).waitFor({ timeout: 30_000 });
    const seconds = async () => {
      const text = (await spotRow.getByTestId('countdown').textContent()) ?? '';
      const m = /(?:(\d+) m )?(\d+) s/.exec(text);
      return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : undefined;
    };
    const first = await waitFor(seconds, 'a countdown on the waiting cordon', 10_000, 100);
    // The grace counts from the end of the cordon's managedFields second (docs/reliability.md), so the first reading
    // can be up to a second above the grace itself, never more.
    expect(first).toBeLessThanOrEqual(GRACE_SECONDS + 1);
    await waitFor(async () => ((await seconds()) ?? first) < first, 'the countdown to tick down', 5000, 200);
    await expect(spotRow.textContent()).resolves.toContain('node-termination-handler');
    await manualRow.and(page.locator('[data-verdict=skip]')).waitFor({ timeout: 30_000 });
    await expect(manualRow.textContent()).resolves.toContain('Cordoned by someone else (not NTH): never touched.');
    await expect(manualRow.textContent()).resolves.toContain('kubectl');
    await shot(page, '03-cordons-waiting');

    await spotRow.and(page.locator('[data-verdict=uncordoned]')).waitFor({ timeout: 60_000 });
    await expect(spotRow.textContent()).resolves.toMatch(/uncordoned/i);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await expect(manualRow.getAttribute('data-verdict')).resolves.toBe('skip');
    await shot(page, '04-cordons-uncordoned');
  }, 120_000);

  it('Activity: the uncordon is on the timeline with who did it', async () => {
    await page.keyboard.press('3');
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await page.getByTestId('activity').getByText('uncordon', { exact: false }).first().waitFor();
    await expect(page.getByTestId('activity').textContent()).resolves.toContain('asked by system:uncordon');
    await shot(page, '05-activity');
  });

  it('Optimize: the plan shows its hourly and monthly savings, and a dry run can be triggered with the write scope', async () => {
    const readPlan = async () => (await (await fetch(`${system.url}/api/v1/optimize/plan`, { headers: { authorization: `Bearer ${testToken()}` } })).json()) as { hourlySavingsUsd: number; monthlySavingsUsd: number; remove: unknown[] };
    expect((await readPlan()).remove.length).toBeGreaterThan(0);
    await page.keyboard.press('4');
    await page.getByRole('heading', { name: 'Optimize' }).waitFor();
    await page.getByTestId('hourly-savings').filter({ hasText: '$' }).waitFor();
    // The plan is recomputed every cycle (the page follows optimize.planned): it shows the API's current savings.
    await waitFor(async () => {
      const plan = await readPlan();
      const shown = [await page.getByTestId('hourly-savings').textContent(), await page.getByTestId('monthly-savings').textContent()];
      return shown[0] === `$${plan.hourlySavingsUsd.toFixed(2)}` && shown[1] === `$${plan.monthlySavingsUsd.toFixed(0)}`;
    }, 'the page to show the plan’s hourly and monthly savings', 15_000, 500);
    await page.getByRole('button', { name: 'Dry run now' }).click();
    await page.getByRole('status').filter({ hasText: 'Dry run recorded' }).waitFor();
    expect(unreadable((await page.locator('main').textContent()) ?? '')).toEqual([]);
    await shot(page, '06-optimize');
  });

  it('Spot: prices per zone as a chart with the interruption estimate and its basis; NodePools with Karpenter', async () => {
    await page.keyboard.press('5');
    await page.getByRole('heading', { name: 'Spot market' }).waitFor();
    await page.getByTestId('price-chart').locator('canvas').waitFor();
    await page.getByText(/every change over the last 168 h/).waitFor();
    // The chart's data: every price change per zone over the window, each zone starting at the window's start.
    const auth = { headers: { authorization: `Bearer ${testToken()}` } };
    const market = (await (await fetch(`${system.url}/api/v1/spot/market`, auth)).json()) as { items: { instanceType: string }[] };
    const type = market.items[0]!.instanceType;
    const history = (await (await fetch(`${system.url}/api/v1/spot/history?instanceType=${type}`, auth)).json()) as { window: { from: string; to: string }; zones: { zone: string; points: { at: string; usdPerHour: number }[] }[] };
    expect(history.zones.length).toBeGreaterThan(0);
    for (const z of history.zones) {
      const at = z.points.map((p) => p.at);
      expect({ zone: z.zone, first: at[0], sorted: [...at].sort().join() === at.join(), inWindow: at.every((t) => t >= history.window.from && t <= history.window.to) }).toEqual({ zone: z.zone, first: history.window.from, sorted: true, inWindow: true });
      expect(z.points.length).toBeGreaterThan(2);
    }
    expect((await fetch(`${system.url}/api/v1/spot/history?instanceType=M5`, auth)).status).toBe(400);
    await expect(page.locator('main').textContent()).resolves.toMatch(/from price movement|from price and Spot Advisor|measured in this cluster|too little price history/);
    // The ledger's headline cards: figures with their units, the horizon as a duration, times in the viewer's zone.
    const ledger = page.getByTestId('rebalance-ledger');
    await ledger.getByText('Follow-up horizon', { exact: true }).waitFor();
    const cards = (await ledger.textContent()) ?? '';
    expect(cards).not.toMatch(/horizon hours|\bfrom\b\s*\d{4}-/i);
    expect(cards).toMatch(/Rebalance recommendations\s*\d/);
    // Interruptions per 1,000 node-hours, recommendation or not: the rate in words with its unit and interval.
    const rates = page.getByTestId('interruption-rates');
    await rates.getByText(/^All Spot nodes: /).waitFor();
    expect((await rates.textContent()) ?? '').toMatch(/All Spot nodes: (\d[\d,.]* per 1,000 node-hours \(95% interval [\d,.]+–[\d,.]+\), from [\d,]+ interruptions? in [\d,.]+ node-hours|\d+ interruptions?; no node-hours known)/);
    expect(unreadable((await page.locator('main').textContent()) ?? '')).toEqual([]);
    await shot(page, '07-spot');
    // Pools: opens on the pools the fleet runs in and those not healthy, with a summary line; the rest of the
    // catalogue behind the filter. Health in words, Spot nodes, prices and expected cost, steering's mode.
    await page.getByRole('link', { name: 'Pools', exact: true }).click();
    await page.getByRole('heading', { name: 'Spot pools' }).waitFor();
    await page.locator('[data-testid=pool-row]').first().waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('steering-mode').textContent()).resolves.toContain('Steering plans only: nothing is written');
    const poolsApi = (await (await fetch(`${system.url}/api/v1/steering/pools`, auth)).json()) as { pools: { instanceType: string; zone: string; state: string; nodes: number | null }[] };
    const spotNodes = (await (await fetch(`${system.url}/api/v1/nodes?limit=100&capacityType=spot`, auth)).json()) as { items: { instanceType: string; zone: string }[] };
    const usedKeys = new Set(spotNodes.items.map((n) => `${n.instanceType}/${n.zone}`));
    expect(usedKeys.size).toBeGreaterThan(0);
    expect(new Set(poolsApi.pools.filter((p) => (p.nodes ?? 0) > 0).map((p) => `${p.instanceType}/${p.zone}`))).toEqual(usedKeys);
    const opening = poolsApi.pools.filter((p) => (p.nodes ?? 0) > 0 || p.state !== 'healthy');
    expect(opening.length).toBeLessThan(poolsApi.pools.length);
    await expect(page.getByLabel('Show').inputValue()).resolves.toBe('fleet');
    expect(await page.locator('[data-testid=pool-row]').count()).toBe(opening.length);
    const avoided = poolsApi.pools.filter((p) => p.state === 'avoid').length;
    const watched = poolsApi.pools.filter((p) => p.state === 'watch').length;
    const more = poolsApi.pools.length - opening.length;
    await expect(page.getByTestId('pools-summary').textContent()).resolves.toMatch(
      new RegExp(`^${usedKeys.size} pools? in use, ${avoided} avoided, ${watched} watched — ${more} more( pool)? in the catalogue · last judged `),
    );
    const firstRow = (await page.locator('[data-testid=pool-row]').first().textContent()) ?? '';
    expect(firstRow).toContain(opening[0]!.instanceType);
    expect(firstRow).toMatch(/Healthy|Watch|Avoid/);
    expect(unreadable((await page.locator('main').textContent()) ?? '')).toEqual([]);
    await shot(page, '07b-pools');
    // The rest of the catalogue is one choice away.
    await page.getByLabel('Show').selectOption('all');
    await waitFor(async () => (await page.locator('[data-testid=pool-row]').count()) === poolsApi.pools.length, 'every pool behind the filter', 10_000, 100);
    await page.getByLabel('Show').selectOption('fleet');
    await page.getByRole('link', { name: 'NodePools' }).click();
    await page.getByRole('heading', { name: 'NodePools' }).waitFor();
    await page.getByRole('cell', { name: 'general', exact: true }).waitFor();
    await shot(page, '08-nodepools');
    // Panels for routes this gateway does not offer stay hidden.
    expect(await page.getByRole('link', { name: 'Approvals' }).count()).toBe((await fetch(`${system.url}/api/v1/approvals`, { headers: { authorization: `Bearer ${testToken()}` } })).status === 200 ? 1 : 0);
  });

  it('Workloads: each pod with how its node fits it, in words; a node that now refuses a pod says which taint', async () => {
    const auth = { headers: { authorization: `Bearer ${testToken()}` } };
    const placement = (await (await fetch(`${system.url}/api/v1/workloads/placement?limit=50`, auth)).json()) as { items: { pod: string; node: string; fit: string }[] };
    const target = placement.items.find((p) => p.fit === 'scored')!;
    await page.keyboard.press('6');
    await page.getByRole('heading', { name: 'Workloads' }).waitFor();
    await page.locator('[data-testid=workload-row][data-fit=scored]').first().waitFor();
    await expect(page.locator('[data-testid=workload-row][data-fit=scored] [data-testid=fit]').first().textContent()).resolves.toMatch(/^fitsscore \d+ of 100$/);
    // A taint the pod does not tolerate, added after it was placed: its node now refuses it, and the row says why.
    kube.scenario.addTaint(target.node, { key: 'example.com/maintenance', value: 'planned', effect: 'NoSchedule' });
    try {
      await page.getByLabel('Node').fill(target.node);
      const row = page.locator(`[data-testid=workload-row][data-pod="${target.pod}"][data-fit=node_refuses]`);
      await waitFor(async () => {
        if (await row.count()) return true;
        await page.getByRole('button', { name: 'Refresh' }).click();
        return false;
      }, 'the tainted node to refuse the pod in the view', 30_000, 1000);
      const fit = (await row.getByTestId('fit').textContent()) ?? '';
      expect(fit).toContain('its node now refuses it');
      expect(fit).toContain('a taint the pod does not tolerate: taint example.com/maintenance=planned:NoSchedule not tolerated');
      expect(unreadable(fit)).toEqual([]);
      await shot(page, '07a-workloads');
    } finally {
      kube.scenario.removeTaint(target.node, 'example.com/maintenance');
    }
  });

  it('Pools: two Spot nodes of one pool reclaimed within minutes put it in avoid, with a live countdown to its restore', async () => {
    const auth = { headers: { authorization: `Bearer ${testToken()}` } };
    const nodes = (await (await fetch(`${system.url}/api/v1/nodes?limit=100&state=Ready`, auth)).json()) as { items: { name: string; capacityType: string; instanceType: string; zone: string }[] };
    // Two Spot nodes made one pool: the second takes the first's instance type and zone.
    const spot = nodes.items.filter((x) => x.capacityType === 'spot');
    expect(spot.length).toBeGreaterThanOrEqual(2);
    const [a, b] = spot as [(typeof spot)[number], (typeof spot)[number]];
    kube.scenario.setLabel(b.name, 'node.kubernetes.io/instance-type', a.instanceType);
    kube.scenario.setLabel(b.name, 'topology.kubernetes.io/zone', a.zone);
    const pool = `${a.instanceType}/${a.zone}`;
    const hit = [a.name, b.name];
    await waitFor(async () => {
      const n = (await (await fetch(`${system.url}/api/v1/nodes/${b.name}`, auth)).json()) as { instanceType?: string; zone?: string };
      return n.instanceType === a.instanceType && n.zone === a.zone;
    }, 'the relabelled node to be synced', 30_000, 250);
    for (const n of hit) {
      kube.scenario.nodeEvent(n, 'RebalanceRecommendation', 'Rebalance recommendation received. Instance will be cordoned now');
      kube.scenario.cordonAsNth(n, { taint: true });
    }
    await waitFor(async () => {
      const rows = (await (await fetch(`${system.url}/api/v1/rebalances?limit=100`, auth)).json()) as { items: { node: string }[] };
      return hit.every((n) => rows.items.some((r) => r.node === n));
    }, 'the ledger to record both rebalances', 30_000, 250);
    for (const n of hit) kube.scenario.interruptAsNth(n);
    const [type, zone] = pool.split('/');
    await waitFor(async () => {
      const body = (await (await fetch(`${system.url}/api/v1/steering/pools`, auth)).json()) as { pools: { instanceType: string; zone: string; state: string }[] };
      return body.pools.some((p) => p.instanceType === type && p.zone === zone && p.state === 'avoid');
    }, `${pool} to be avoided`, 60_000, 500);
    await page.getByRole('link', { name: 'Pools', exact: true }).click();
    await page.getByRole('heading', { name: 'Spot pools' }).waitFor();
    await page.getByLabel('Show').selectOption('attention');
    const row = page.locator('[data-testid=pool-row][data-state=avoid]').filter({ hasText: type! }).filter({ hasText: zone! });
    await row.waitFor({ timeout: 15_000 });
    const first = (await row.getByTestId('restore').textContent()) ?? '';
    expect(first).toMatch(/^in \d+ h \d{2} m/);
    await expect(row.textContent()).resolves.toMatch(/Avoid/);
    expect(unreadable((await page.locator('main').textContent()) ?? '')).toEqual([]);
    await shot(page, '07c-pools-avoid');
  }, 120_000);

  it('left no error in the page console', () => {
    expect(pageErrors).toEqual([]);
  });
});

describe('Approvals', () => {
  const auth = { headers: { authorization: `Bearer ${testToken()}` } };
  const pendingFences = async () =>
    ((await (await fetch(`${system.url}/api/v1/approvals?kind=fence&status=pending`, auth)).json()) as { items: { id: string; subject: string }[] }).items;
  /** hang — a node stops renewing its Lease (3 minutes ago) and turns NotReady: the fencing loop asks to fence it. */
  const hang = async (node: string) => {
    kube.scenario.hangNode(node, { since: new Date(Date.now() - 3 * 60_000) });
    return waitFor(async () => (await pendingFences()).find((a) => a.subject === node), `a fence request for ${node}`, 30_000, 500);
  };
  const byZone = async () => {
    const nodes = (await (await fetch(`${system.url}/api/v1/nodes?limit=100&state=Ready`, auth)).json()) as { items: { name: string; zone: string; cordoned?: boolean }[] };
    return [...new Map(nodes.items.map((n) => [n.zone, n.name])).values()];
  };

  it('lists pending fence requests; approving one and rejecting another changes their status in place', async () => {
    const [first, second] = await byZone();
    const toApprove = await hang(first!);
    const toReject = await hang(second!);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    const page = await newPage(ctx, errors);
    await page.goto(`${system.url}/#token=${testToken('nodes:read nodes:write', 'erin')}`);
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const row = (id: string) => page.locator(`[data-testid=approval-row][data-id="${id}"]`);
    await row(toApprove.id).and(page.locator('[data-status=pending]')).waitFor({ timeout: 15_000 });
    await row(toReject.id).and(page.locator('[data-status=pending]')).waitFor();
    await expect(row(toApprove.id).textContent()).resolves.toContain(first);
    await shot(page, '10-approvals-pending');

    await row(toApprove.id).getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('status').filter({ hasText: `Approved: Fence of ${first}` }).waitFor();
    // Approved, then carried out at the fencing loop's next pass: the row follows without a reload.
    await row(toApprove.id).and(page.locator('[data-status=executed]')).waitFor({ timeout: 30_000 });
    await expect(row(toApprove.id).getByTestId('approval-status').textContent()).resolves.toContain('by erin');
    expect(await row(toApprove.id).getByRole('button').count()).toBe(0);

    await row(toReject.id).getByRole('button', { name: 'Reject' }).click();
    await row(toReject.id).and(page.locator('[data-status=rejected]')).waitFor({ timeout: 15_000 });
    expect(await row(toReject.id).getByRole('button').count()).toBe(0);
    await shot(page, '11-approvals-decided');
    const api = (id: string) => fetch(`${system.url}/api/v1/approvals/${id}`, auth).then((r) => r.json()) as Promise<{ status: string; decidedBy: string }>;
    expect([await api(toApprove.id), await api(toReject.id)]).toEqual([expect.objectContaining({ status: 'executed', decidedBy: 'erin' }), expect.objectContaining({ status: 'rejected', decidedBy: 'erin' })]);
    await ctx.close();
    expect(errors).toEqual([]);
  }, 120_000);

  it('a read-only token sees the pending request but no buttons, and the API refuses its approval (403)', async () => {
    const [, , third] = await byZone();
    const pending = await hang(third!);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    const page = await newPage(ctx, errors);
    const readOnly = testToken('nodes:read', 'rita');
    await page.goto(`${system.url}/#token=${readOnly}`);
    await page.getByRole('link', { name: 'Approvals' }).click();
    const row = page.locator(`[data-testid=approval-row][data-id="${pending.id}"]`);
    await row.and(page.locator('[data-status=pending]')).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid=approval-row]').getByRole('button').count()).toBe(0);
    await page.getByText('read-only: deciding needs the write scope').waitFor();
    await shot(page, '12-approvals-read-only');
    const refused = await fetch(`${system.url}/api/v1/approvals/${pending.id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(403);
    await ctx.close();
    expect(errors).toEqual([]);
    expect((await (await fetch(`${system.url}/api/v1/approvals/${pending.id}`, auth)).json()) as { status: string }).toMatchObject({ status: 'pending' });
  }, 60_000);
});

describe('through failures and repeats', () => {
  it('Fleet: a node whose re-read fails stays, marked stale with when it was last seen in the viewer’s zone; a good re-read clears it', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'Asia/Kolkata', locale: 'en-GB' });
    const errors: string[] = [];
    const page = await newPage(ctx, errors);
    await page.goto(`${system.url}/#token=${testToken('nodes:read', 'erin')}`);
    await page.getByTestId('fleet-row').first().waitFor();
    const target = (await page.getByTestId('fleet-row').first().getAttribute('data-node'))!;
    const row = page.locator(`[data-testid=fleet-row][data-node="${target}"]`);
    // Its next re-read fails (the API answers 503); a change to the node makes the view re-read it.
    await page.route(`**/api/v1/nodes/${target}`, (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"code":"SERVICE_UNAVAILABLE","message":"node-sync unavailable"}' }));
    kube.scenario.addTaint(target, { key: 'example.com/touched', value: 'once', effect: 'PreferNoSchedule' });
    await row.and(page.locator('[data-stale=true]')).waitFor({ timeout: 30_000 });
    const at = (await row.getByTestId('stale').locator('time').getAttribute('datetime'))!;
    const inKolkata = new Date(at).toLocaleTimeString('en-GB', { timeZone: 'Asia/Kolkata', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    await expect(row.getByTestId('stale').textContent()).resolves.toBe(`stale · last seen ${inKolkata}`);
    await expect(page.getByTestId('fleet-stale-notice').textContent()).resolves.toContain('1 node could not be refreshed');
    await shot(page, '10-fleet-stale');

    await page.unroute(`**/api/v1/nodes/${target}`);
    kube.scenario.removeTaint(target, 'example.com/touched');
    await page.locator(`[data-testid=fleet-row][data-node="${target}"]:not([data-stale])`).waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('fleet-stale-notice').count()).resolves.toBe(0);
    await ctx.close();
    expect(errors.filter((e) => !e.includes('503'))).toEqual([]);
  }, 90_000);

  it('Activity: an event the stream delivers twice, and again after a reconnect, and the stored row a refresh brings, show once', async () => {
    const node = 'ip-10-9-9-9.ec2.internal';
    const at = new Date(Date.now() - 60_000).toISOString();
    const event = { specversion: '1.0', id: '5f0c2f3e-0000-4000-8000-00000000d0b1', source: 'nodes-manager/uncordon', type: 'node.uncordoned', time: at, subject: node, actor: 'system:uncordon', data: { node, reason: 'UNCORDON' } };
    let stored = false;
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    const page = await newPage(ctx, errors);
    // The stream: the event twice on the first connection; on every reconnect the gateway replays it, and once the
    // row is stored, says events were lost (`reset`), so the view re-reads the API.
    let connections = 0;
    await page.route('**/api/v1/stream**', (route) => {
      connections++;
      const message = `id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`;
      const body = `event: hello\ndata: {"epoch":"e1"}\n\n${message}${connections === 1 ? message : ''}${stored ? 'event: reset\ndata: {"reason":"test"}\n\n' : ''}`;
      return route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body });
    });
    // Straight to Activity: the Fleet view would refresh the node the stream names, which is not in the fleet (404).
    await page.goto(`${system.url}/#token=${testToken('nodes:read', 'erin')}&view=activity`);
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    const entries = page.locator(`[data-testid=activity-entry][data-subject="${node}"]`);
    await entries.first().waitFor();
    await waitFor(() => connections >= 2 || undefined, 'a reconnect (the replay)', 10_000, 100);
    expect(await entries.count()).toBe(1);

    // The same uncordon is now stored (its scaling event: same node, same instant); a refresh brings it.
    await db.query(
      `INSERT INTO nodes.scaling_events (id, node_name, action, decision, reason, actor, dry_run, evidence, created_at) VALUES ($1, $2, 'uncordon', 'uncordon', 'UNCORDON', 'system:uncordon', false, '{}', $3)`,
      ['5f0c2f3e-0000-4000-8000-00000000d0b2', node, at],
    );
    stored = true;
    await entries.filter({ hasText: 'Reversed a Spot rebalance cordon' }).waitFor({ timeout: 15_000 });
    const shown = await waitFor(async () => {
      const n = await entries.count();
      return connections >= 4 ? n : undefined;
    }, 'two more reconnects, each with a refresh', 15_000, 200);
    expect(shown).toBe(1);
    await shot(page, '11-activity-once');
    await ctx.close();
    expect(errors).toEqual([]);
  }, 60_000);
});
describe('the pause banner', () => {
  it('shows who paused, why, since and until when in the viewer\'s time zone across every view; Resume (write scope) ends it', async () => {
    const write = { authorization: `Bearer ${testToken('nodes:read nodes:write', 'paula')}`, 'content-type': 'application/json' };
    const until = new Date(Date.now() + 2 * 3600_000).toISOString();
    // Every wait names its step and has a bound of its own, so a slow machine's failure says where it stalled.
    const paused = await fetch(`${system.url}/api/v1/pause`, { method: 'POST', headers: write, body: JSON.stringify({ reason: 'CNI rollout misbehaving', until }), signal: AbortSignal.timeout(20_000) });
    expect(paused.status).toBe(200);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'Europe/Paris', locale: 'en-GB' });
    const errors: string[] = [];
    const page = await newPage(ctx, errors);
    await page.goto(`${system.url}/#token=${testToken('nodes:read nodes:write', 'erin')}`);
    const banner = page.getByTestId('pause-banner');
    await banner.waitFor({ timeout: 20_000 });
    const text = (await banner.textContent()) ?? '';
    const parisUntil = new Date(until).toLocaleString('en-GB', { timeZone: 'Europe/Paris', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    expect(text).toContain('Disruptive actions are paused');
    expect(text).toContain('by paula');
    expect(text).toContain('CNI rollout misbehaving');
    expect(text).toContain(`until ${parisUntil}`);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    await shot(page, '13-pause-banner');
    await page.getByRole('link', { name: 'Activity' }).click({ timeout: 15_000 });
    await banner.waitFor({ timeout: 15_000 });
    // A read-only viewer sees it, without the button.
    const ro = await newPage(ctx, errors);
    await ro.goto(`${system.url}/#token=${testToken('nodes:read', 'rita')}`);
    await ro.getByTestId('pause-banner').waitFor({ timeout: 20_000 });
    expect(await ro.getByTestId('pause-banner').getByRole('button').count()).toBe(0);
    await banner.getByRole('button', { name: 'Resume' }).click({ timeout: 15_000 });
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    // The other page follows on the disruptions.resumed event, without a reload.
    await ro.getByTestId('pause-banner').waitFor({ state: 'detached', timeout: 20_000 });
    const view = (await (await fetch(`${system.url}/api/v1/pause`, { headers: write, signal: AbortSignal.timeout(15_000) })).json()) as { paused: boolean; changes: { action: string; actor: string }[] };
    expect(view).toMatchObject({ paused: false, changes: [{ action: 'resume', actor: 'erin' }, { action: 'pause', actor: 'paula' }] });
    await ctx.close();
    expect(errors).toEqual([]);
  }, 180_000);
});
