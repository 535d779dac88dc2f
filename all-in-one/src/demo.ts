import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { signToken } from '@nodes-manager/platform';
import { generateFleet, startEc2Sim, startKubeSim, startSimKarpenter, type Ec2Sim, type Fleet, type KubeSim, type SimKarpenter } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from './all-in-one.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';
import { runRebalanceStory } from './story.js';
import { prepareNodeSafety, runNodeSafetyStory } from './node-safety-story.js';
import { runRebalanceLedgerStory } from './rebalance-ledger-story.js';
import { replayPools, replayRows, seedLedgerHistory } from './ledger-history.js';
import { runSteeringStory } from './steering-story.js';

/**
 * `npm run demo` — nodes-manager on an embedded default: all six service modules in one process, an embedded
 * PostgreSQL when DATABASE_URL is unset, and (by default, `--simulate`) the Kubernetes and EC2 simulators seeded with a
 * realistic fleet, Karpenter's CRDs and NodePools and the simulator's Karpenter, and a seeded replay of five days of
 * rebalances in the ledger; then the stories told through the public API. See README and docs/demo.md.
 */
const { values: args } = parseArgs({
  options: {
    simulate: { type: 'boolean', default: true },
    'no-simulate': { type: 'boolean', default: false },
    nodes: { type: 'string', default: '60' },
    seed: { type: 'string', default: '42' },
    port: { type: 'string', default: process.env['APP_PORT'] ?? '8115' },
    'keep-data': { type: 'boolean', default: false },
    'exit-after-story': { type: 'boolean', default: false },
    'story-timeout': { type: 'string', default: '120' },
  },
});

const say = (line: string) => process.stdout.write(`[demo] ${line}\n`);
const simulate = args.simulate && !args['no-simulate'];
const cleanups: (() => Promise<void>)[] = [];
let exiting = false;
async function shutdown(code: number): Promise<never> {
  if (!exiting) {
    exiting = true;
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
  process.exit(code);
}
// Ctrl-C shuts down in order: services, simulators, then the database they write to.
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  let db: EmbeddedDatabase | undefined;
  if (!env['DATABASE_URL']) {
    say('DATABASE_URL is unset: starting an embedded PostgreSQL…');
    db = await startEmbeddedPostgres({ keep: args['keep-data'] });
    cleanups.push(() => db!.stop());
    env['DATABASE_URL'] = db.url;
    say(`embedded PostgreSQL ready (data in ${db.dataDir}${args['keep-data'] ? ', kept on exit' : ', removed on exit'})`);
  }
  let kube: KubeSim | undefined;
  let ec2: Ec2Sim | undefined;
  let safety: { fenced: string[]; relieve: string } | undefined;
  let fleet: Fleet | undefined;
  let karpenter: SimKarpenter | undefined;
  if (simulate) {
    // Karpenter's CRDs with the fleet's NodePools and NodeClaims, and the simulator's Karpenter running over them.
    kube = await startKubeSim({ karpenter: true, kubelet: { renewMs: 2_000 } });
    cleanups.push(() => kube!.stop());
    fleet = generateFleet({ seed: Number(args.seed), nodes: Number(args.nodes), karpenter: true });
    ec2 = await startEc2Sim({ region: 'us-east-1' });
    cleanups.push(() => ec2!.stop());
    safety = prepareNodeSafety(fleet, ec2);
    kube.load(fleet);
    karpenter = startSimKarpenter({ api: kube.api, ec2, clock: () => new Date() });
    cleanups.push(async () => karpenter!.stop());
    env['KUBECONFIG'] = kube.kubeconfigPath;
    env['AWS_REGION'] ??= 'us-east-1';
    env['AWS_ACCESS_KEY_ID'] ??= 'simulated';
    env['AWS_SECRET_ACCESS_KEY'] ??= 'simulated';
    env['AWS_ENDPOINT_URL_EC2'] = ec2.url;
    process.env['AWS_ENDPOINT_URL_EC2'] = ec2.url;
    say(`Kubernetes simulator: ${fleet.nodes.length} nodes, ${fleet.pods.length} pods at ${kube.url} (KUBECONFIG=${kube.kubeconfigPath} kubectl get nodes)`);
    say(`EC2 simulator at ${ec2.url}`);
    say(`Karpenter: its CRDs and ${fleet.nodePools?.length ?? 0} NodePools installed in the simulator, the simulator's Karpenter running (provisioning, drift, budgets, interruptions)`);
  }
  env['AUTH_JWT_ACCESS_SECRET'] ??= randomBytes(24).toString('base64url');
  env['SCAN_INTERVAL_SECONDS'] ??= '5';
  env['AUTO_UNCORDON_GRACE_PERIOD_MINUTES'] ??= '0.5';
  env['KARPENTER_DISCOVERY_CACHE_SECONDS'] ??= '5';
  // Fencing and pressure on a demo clock (production defaults: 60 s past the lease, 30 s waits and intervals).
  env['FENCING_LEASE_TIMEOUT_SECONDS'] ??= '5';
  env['FENCING_POD_DELETE_WAIT_SECONDS'] ??= '2';
  env['PRESSURE_INTERVAL_SECONDS'] ??= '2';
  env['PRESSURE_SUSTAIN_SAMPLES'] ??= '2';
  // Compressed time for the rebalance ledger story: a 60 s observation horizon instead of 24 h.
  env['REBALANCE_HORIZON_HOURS'] ??= String(60 / 3600);
  env['SPOT_MEASURED_MIN_SAMPLES'] ??= '1';
  // Steering judges pools every 5 s in the demo (production default: 60 s), and only plans: nothing is written.
  env['STEERING_INTERVAL_SECONDS'] ??= '5';
  env['STEERING_MODE'] ??= 'plan';
  env['LOG_LEVEL'] ??= 'warn';
  env['APP_PORT'] = args.port;

  const system: AllInOne = await startAllInOne({ env });
  cleanups.push(() => system.close());
  if (fleet) {
    // A ledger history, so steering has something to judge from the start: a seeded replay, not measured here.
    const pools = replayPools(fleet);
    const rows = replayRows(pools, Number(args.seed), new Date());
    await seedLedgerHistory(env['DATABASE_URL']!, rows);
    say(`ledger history: a seeded replay (seed ${args.seed}) of ${rows.length} past rebalances over five days in ${pools.length} Spot pools the fleet runs in — not measured here:`);
    for (const p of pools) say(`  replay ${p.instanceType} in ${p.zone}: ${p.interrupted} of ${p.samples} rebalances followed by an interruption`);
  }
  // What other teams would receive on the nodes.events exchange (in-process here; RabbitMQ when RABBITMQ_URL is set).
  system.runtime.eventBus?.tap((e) => {
    if (e.type === 'node.uncordoned' || e.type.startsWith('node.drain.') || e.type === 'node.fenced' || e.type === 'node.pressure.relieved' || e.type.startsWith('rebalance.')) say(`event ${e.type} published on nodes.events (id ${e.id}, subject ${e.subject}, actor ${e.actor})`);
  });
  const token = signToken(env['AUTH_JWT_ACCESS_SECRET']!, { sub: 'demo-operator', scope: 'nodes:read nodes:write' }, 24 * 3600);
  // The first line to open: the console, signed in by the token in the fragment (never sent to the server or logged).
  say(`open the console: ${system.url}/#token=${token}`);
  say(`nodes-manager (all-in-one) is serving the API at ${system.url}/api/v1 — OpenAPI at ${system.url}/api/docs`);
  say(`demo token (read+write scope, 24 h): ${token}`);
  say(`try: curl -H "Authorization: Bearer $TOKEN" ${system.url}/api/v1/cordons`);
  say(`grace period shortened to ${env['AUTO_UNCORDON_GRACE_PERIOD_MINUTES']} min for the demo (production default: 15 min)`);

  if (kube && fleet) {
    await runSteeringStory({ apiUrl: system.url, token, say, timeoutMs: 60_000, expectAvoid: replayPools(fleet).find((p) => p.story === 'avoid') ?? null }).catch((err: Error) => say(`steering story failed: ${err.message}`));
  }
  if (kube) {
    const result = await runRebalanceStory({ apiUrl: system.url, token, kube, say, timeoutMs: Number(args['story-timeout']) * 1000 });
    if (safety) {
      const s = await runNodeSafetyStory({ apiUrl: system.url, token, kube, hung: safety.fenced[safety.fenced.length - 1]!, relieve: safety.relieve, say, timeoutMs: 60_000 });
      say(s.fenced && s.relieved ? 'node-safety story complete: a hung node fenced through EC2, a node under memory pressure relieved.' : 'node-safety story did not complete.');
    }
    say(result.uncordoned && result.manualStillCordoned ? 'story complete.' : 'story did not complete.');
    if (args['exit-after-story']) await shutdown(result.uncordoned && result.manualStillCordoned ? 0 : 1);
    if (ec2) {
      say(`try: curl -H "Authorization: Bearer $TOKEN" ${system.url}/api/v1/rebalances (and /api/v1/rebalances/summary)`);
      const ledger = await runRebalanceLedgerStory({
        apiUrl: system.url, token, kube, ec2, say, exclude: [result.rebalanced, result.manual, ...(safety ? [...safety.fenced, safety.relieve] : [])],
        horizonHours: Number(env['REBALANCE_HORIZON_HOURS']), timeoutMs: Number(args['story-timeout']) * 1000,
      }).catch((err: Error) => (say(`rebalance ledger story failed: ${err.message}`), { resolved: 0, interrupted: 0 }));
      say(ledger.resolved > 0 ? 'rebalance ledger story complete.' : 'rebalance ledger story did not complete.');
    }
  }
  say('running; Ctrl-C stops it and removes the demo data.');
}

main().catch(async (err) => {
  process.stderr.write(`demo failed: ${(err as Error).message}\n`);
  await shutdown(1);
});
