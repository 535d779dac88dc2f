import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { FENCING_LABEL } from '@nodes-manager/contracts';
import { createRuntime } from '@nodes-manager/platform';
import { createTestDatabase, TEST_JWT_SECRET, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';

/** What the console's browser tests share: the system they start, the browser, the page helpers, the screenshots. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? 'chromium';
export const SHOTS = join(process.cwd(), '.tmp', 'screenshots');
export const GRACE_SECONDS = 12;

/** What the pages of the views wrote to their console as errors (page errors, failed loads): must stay empty. */
export const pageErrors: string[] = [];

/** The events the system last started published (its in-process bus). */
export const published: { type: string; data: unknown }[] = [];

export async function startSystem(consoleDir: string, opts: { nodes: number; podsPerNode?: number; env?: Record<string, string>; seed?: number; fencing?: boolean }): Promise<{ db: TestDatabase; kube: KubeSim; ec2: Ec2Sim; system: AllInOne }> {
  const db = await createTestDatabase();
  const kube = await startKubeSim({ karpenter: true, podTerminationMs: 50 } as never);
  const fleet = generateFleet({ seed: opts.seed ?? 7, nodes: opts.nodes, karpenter: true, ...(opts.podsPerNode ? { podsPerNode: opts.podsPerNode } : {}) });
  // Every node opted in to fencing: a few hung at once stay far below the partition share.
  if (opts.fencing) for (const n of fleet.nodes) n.metadata!.labels![FENCING_LABEL] = 'enabled';
  kube.load(fleet);
  const ec2 = await startEc2Sim({ region: 'us-east-1' });
  if (opts.fencing) ec2.adoptNodes(fleet.nodes);
  process.env['AWS_ENDPOINT_URL_EC2'] = ec2.url;
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error' });
  published.length = 0;
  runtime.eventBus!.tap((e) => published.push(e));
  const system = await startAllInOne({
    runtime,
    consoleDir,
    env: {
      DATABASE_URL: db.url,
      AUTH_JWT_ACCESS_SECRET: TEST_JWT_SECRET,
      SCAN_INTERVAL_SECONDS: '2',
      LOG_LEVEL: 'error',
      APP_PORT: '0',
      KUBECONFIG: kube.kubeconfigPath,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
      AWS_ENDPOINT_URL_EC2: ec2.url,
      AUTO_UNCORDON_GRACE_PERIOD_MINUTES: String(GRACE_SECONDS / 60),
      KARPENTER_DISCOVERY_CACHE_SECONDS: '1',
      STEERING_INTERVAL_SECONDS: '2',
      STEERING_BURST_SIZE: '2',
      ...opts.env,
    },
  });
  return { db, kube, ec2, system };
}

export async function newPage(ctx: BrowserContext, errors = pageErrors): Promise<Page> {
  const page = await ctx.newPage();
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console.error: ${msg.text()}`);
  });
  return page;
}

/**
 * unreadable — what in a view's text is for machines, not people: an ISO timestamp, a float with more than four
 * decimals (prices show four), or a snake_case reason code. Every view a person reads must come back empty.
 */
export function unreadable(text: string): string[] {
  return [...text.matchAll(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\d+\.\d{5,}|\b[a-z]+_[a-z]+(?:_[a-z]+)*\b/g)].map((m) => m[0]);
}

export const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });

/** launchBrowser — the console's bundle built the way `npm run build` builds it, and a headless Chromium. */
export async function launchBrowser(): Promise<{ browser: Browser; consoleDir: string }> {
  mkdirSync(SHOTS, { recursive: true });
  const { buildConsole } = (await import('../../scripts/build-console.mjs' as string)) as { buildConsole: (o: { outdir: string }) => Promise<{ outdir: string }> };
  const consoleDir = (await buildConsole({ outdir: join(tmpdir(), `nodes-manager-console-${process.pid}`) })).outdir;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return { browser, consoleDir };
}
