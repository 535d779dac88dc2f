/**
 * Steering benchmark (docs/steering.md#figures): 30-day playouts of a Spot fleet in six markets × 10 seeds, each run
 * twice on the same weather — Karpenter alone (its 3-minute memory of an interrupted offering, no NodePool change) and
 * with steering (the real rule, rails and NodePool planner of @nodes-manager/steering, every 30 minutes), with
 * Karpenter's drift replacing what steering's writes no longer admit. Prints JSON and the markdown table.
 *   npm run build && node dist/bench/steering.bench.js [--seeds 10] [--days 30] [--markets cheap-most-reclaimed,…]
 * The runs are spread over two worker threads.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { DEFAULT_POOL_HEALTH_CONFIG, type Requirement } from '@nodes-manager/steering';
import { mulberry32, playout, type PlayoutOptions, type PlayoutResult, type PoolSpec } from './support/steering-playout.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};

const OD: Record<string, number> = { 'm5.large': 0.096, 'm5a.large': 0.086, 'm6i.large': 0.096, 'm6a.large': 0.0864, 'c5.large': 0.085, 'c6i.large': 0.085 };
/** [type, zone, share from day 0, share from day 15]: m5a.large in 1a recovers mid-month, m6i.large in 1c turns bad. */
const SHARES: Array<[string, string, number, number]> = [
  ['m5.large', 'us-east-1a', 0.05, 0.05],
  ['m5.large', 'us-east-1b', 0.08, 0.08],
  ['m5.large', 'us-east-1c', 0.1, 0.1],
  ['m5a.large', 'us-east-1a', 0.8, 0.05],
  ['m5a.large', 'us-east-1b', 0.6, 0.6],
  ['m5a.large', 'us-east-1c', 0.15, 0.15],
  ['m6i.large', 'us-east-1a', 0.05, 0.05],
  ['m6i.large', 'us-east-1b', 0.12, 0.12],
  ['m6i.large', 'us-east-1c', 0.06, 0.7],
  ['m6a.large', 'us-east-1a', 0.7, 0.7],
  ['m6a.large', 'us-east-1b', 0.2, 0.2],
  ['m6a.large', 'us-east-1c', 0.3, 0.3],
  ['c5.large', 'us-east-1a', 0.75, 0.75],
  ['c5.large', 'us-east-1b', 0.1, 0.1],
  ['c6i.large', 'us-east-1a', 0.55, 0.55],
  ['c6i.large', 'us-east-1b', 0.05, 0.05],
];
const TURNING = 'm6i.large/us-east-1b';

/** pools — Spot at 30–40% of on-demand: `cheap-is-bad` (the more reclaimed, the cheaper) or `neutral` (independent). */
function pools(model: 'cheap-is-bad' | 'neutral', seed: number, shares: (s: [string, string, number, number]) => Array<[number, number]>): PoolSpec[] {
  const jitter = mulberry32(seed);
  return SHARES.map((s) => {
    const [instanceType, zone, a] = s;
    const factor = model === 'cheap-is-bad' ? 0.4 - 0.1 * a + 0.02 * (jitter() - 0.5) : 0.33 + 0.07 * jitter();
    return { instanceType, zone, onDemandPerHour: OD[instanceType]!, spotPerHour: Math.round(OD[instanceType]! * factor * 10_000) / 10_000, share: shares(s) };
  });
}
const midMonth = ([, , a, b]: [string, string, number, number]): Array<[number, number]> => [[0, a], [15, b]];
const steady = ([, , a]: [string, string, number, number]): Array<[number, number]> => [[0, a]];

const req = (types: string[], zones: string[]): Requirement[] => [
  { key: 'node.kubernetes.io/instance-type', operator: 'In', values: types },
  { key: 'topology.kubernetes.io/zone', operator: 'In', values: zones },
  { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
];
const fleet = (general: number, compute: number) => [
  { name: 'general', nodes: general, requirements: req(['m5.large', 'm5a.large', 'm6i.large', 'm6a.large'], ['us-east-1a', 'us-east-1b', 'us-east-1c']) },
  { name: 'compute', nodes: compute, requirements: req(['c5.large', 'c6i.large'], ['us-east-1a', 'us-east-1b']) },
];

/** RAILS — the rails the playout runs with (docs/steering.md#the-rails). */
export const RAILS = {
  maxAvoidPerHour: 3,
  maxExcludedShare: 0.5,
  keepCheapest: 3,
  maxWritesPerDay: 6,
  priceHysteresis: 0.05,
  maxDriftPerNodePool: 200,
  maxDriftPerHour: 300,
  driftBudgetNodes: '0',
  // `--rails '{"driftBudgetNodes":"0"}'` and `--config '{"avoidRateRatio":2}'` try a variant.
  ...(JSON.parse(arg('rails', '{}')) as object),
};
const CONFIG = { ...DEFAULT_POOL_HEALTH_CONFIG, ...(JSON.parse(arg('config', '{}')) as object) };

type Market = 'cheap-most-reclaimed' | 'prices-independent' | 'turning-pool' | 'zone-wide-events' | 'small-fleet' | 'weak-signal';
const MARKETS: Record<Market, { words: string; options: (seed: number, days: number) => Omit<PlayoutOptions, 'steering'> }> = {
  'cheap-most-reclaimed': { words: 'the cheapest pools are the most reclaimed', options: (seed, days) => base(seed, days, pools('cheap-is-bad', seed, midMonth)) },
  'prices-independent': { words: 'prices independent of reclaims', options: (seed, days) => base(seed, days, pools('neutral', seed, midMonth)) },
  'turning-pool': {
    words: `a pool (${TURNING}) turns bad for a week and recovers`,
    options: (seed, days) => ({
      ...base(seed, days, pools('neutral', seed, (s) => (`${s[0]}/${s[1]}` === TURNING ? [[0, 0.1], [8, 0.8], [15, 0.1]] : steady(s))).map((p) => (`${p.instanceType}/${p.zone}` === TURNING ? { ...p, spotPerHour: Math.round(p.onDemandPerHour * 0.3 * 10_000) / 10_000 } : p))),
      turning: { pool: TURNING, fromDay: 8, toDay: 15 },
    }),
  },
  'zone-wide-events': {
    words: 'zone-wide reclaim events (4 h in us-east-1a on day 8, in us-east-1b on day 20)',
    options: (seed, days) => ({
      ...base(seed, days, pools('neutral', seed, steady)),
      zoneEvents: [
        { zone: 'us-east-1a', day: 8, hours: 4, everyMinutes: 30 },
        { zone: 'us-east-1b', day: 20, hours: 4, everyMinutes: 30 },
      ],
    }),
  },
  'small-fleet': { words: 'a 40-node fleet, the cheapest pools the most reclaimed', options: (seed, days) => ({ ...base(seed, days, pools('cheap-is-bad', seed, midMonth)), nodePools: fleet(32, 8) }) },
  'weak-signal': {
    words: 'a weak signal: a false alarm per node a day, 60% of interruptions without a recommendation',
    options: (seed, days) => ({ ...base(seed, days, pools('cheap-is-bad', seed, midMonth)), falseAlarmPerNodeHour: 1 / 24, recommendShare: 0.4 }),
  },
};

function base(seed: number, days: number, p: PoolSpec[]): Omit<PlayoutOptions, 'steering'> {
  return {
    seed,
    days,
    tickMs: 10 * 60_000,
    passEveryTicks: 3,
    pools: p,
    nodePools: fleet(400, 100),
    falseAlarmPerNodeHour: 1 / 96,
    recommendShare: 1,
    hitShare: 0.3,
    zoneEvents: [],
    priceStepsPerDay: 0.5,
    horizonMs: 24 * 3_600_000,
    config: CONFIG,
    rails: RAILS,
    returnPerTick: 2,
    replaceAvoidedPerPass: Number(arg('replace-avoided', '10')),
  };
}

interface Job {
  market: Market;
  seed: number;
  steering: boolean;
  days: number;
}

if (!isMainThread) {
  for (const job of workerData as Job[]) {
    const r = playout({ ...MARKETS[job.market].options(job.seed, job.days), steering: job.steering });
    parentPort!.postMessage({ job, result: r });
  }
} else {
  const SEEDS = Number(arg('seeds', '10'));
  const DAYS = Number(arg('days', '30'));
  const markets = (arg('markets', Object.keys(MARKETS).join(',')).split(',') as Market[]).filter((m) => m in MARKETS);
  const jobs: Job[] = markets.flatMap((market) => Array.from({ length: SEEDS }, (_, i) => [true, false].map((steering) => ({ market, seed: i + 1, steering, days: DAYS }))).flat());
  const threads = Math.max(1, Math.min(Number(arg('threads', String(Math.min(2, availableParallelism())))), jobs.length));
  const started = performance.now();
  const results: Array<{ job: Job; result: PlayoutResult }> = [];
  await Promise.all(
    Array.from({ length: threads }, (_, t) => {
      const mine = jobs.filter((_, i) => i % threads === t);
      return new Promise<void>((resolve, reject) => {
        const w = new Worker(fileURLToPath(import.meta.url), { workerData: mine, argv: process.argv.slice(2) });
        w.on('message', (m: { job: Job; result: PlayoutResult }) => results.push(m));
        w.on('error', reject);
        w.on('exit', () => resolve());
      });
    }),
  );
  report(markets, SEEDS, DAYS, results, Math.round((performance.now() - started) / 1000));
}

function report(markets: Market[], seeds: number, days: number, results: Array<{ job: Job; result: PlayoutResult }>, seconds: number) {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const of = (m: Market, steering: boolean) => results.filter((r) => r.job.market === m && r.job.steering === steering).sort((a, b) => a.job.seed - b.job.seed).map((r) => r.result);
  const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;
  const rows = markets.map((m) => {
    const w = of(m, false);
    const s = of(m, true);
    const ratio = (f: (r: PlayoutResult) => number) => mean(s.map(f)) / mean(w.map(f)) - 1;
    const interruptions = ratio((r) => r.perThousand.interruptions);
    const all = ratio((r) => r.perThousand.all);
    const cost = ratio((r) => r.fleetUsdPerHour);
    const goal = m === 'cheap-most-reclaimed' ? interruptions <= -0.4 && all <= -0.25 && cost <= 0.05 : all <= 0.05 && cost <= 0.05;
    const turn = s.map((r) => r.turning).filter((t): t is NonNullable<PlayoutResult['turning']> => t !== null);
    return {
      market: m,
      words: MARKETS[m].words,
      without: { interruptions: mean(w.map((r) => r.perThousand.interruptions)), all: mean(w.map((r) => r.perThousand.all)), usd: mean(w.map((r) => r.fleetUsdPerHour)) },
      with: {
        interruptions: mean(s.map((r) => r.perThousand.interruptions)),
        replacements: mean(s.map((r) => r.perThousand.steeringReplacements)),
        replacementsOnPurpose: mean(s.map((r) => r.driftOnPurpose)) / Math.max(1, mean(s.map((r) => r.steeringReplacements))),
        all: mean(s.map((r) => r.perThousand.all)),
        usd: mean(s.map((r) => r.fleetUsdPerHour)),
        writesPerDay: mean(s.map((r) => r.writesPerDay)),
        heldWrites: mean(s.map((r) => r.heldWrites)),
        avoidEntries: mean(s.map((r) => r.avoidEntries)),
        avoidEntriesHealthy: mean(s.map((r) => r.avoidEntriesHealthy)),
        launchesIntoAvoided: mean(s.map((r) => r.launchesIntoAvoided)),
        fallbacks: mean(s.map((r) => r.fallbacks)),
        hoursUntilKeptOut: turn.length ? turn.map((t) => t.hoursUntilKeptOut) : null,
        hoursUntilBack: turn.length ? turn.map((t) => t.hoursUntilBack) : null,
      },
      change: { interruptions, all, cost },
      // Where the interruptions are, alone and with steering (mean per run), the pools with the most first.
      byPool: Object.keys(w[0]?.byPool ?? {})
        .map((k) => ({ pool: k, alone: mean(w.map((r) => r.byPool[k]!.interruptions)), with: mean(s.map((r) => r.byPool[k]!.interruptions)), nodeHoursAlone: mean(w.map((r) => r.byPool[k]!.spotNodeHours)), nodeHoursWith: mean(s.map((r) => r.byPool[k]!.spotNodeHours)) }))
        .sort((a, b) => b.with - a.with)
        .slice(0, 6),
      perSeed: s.map((r, i) => ({ interruptions: r.perThousand.interruptions / w[i]!.perThousand.interruptions - 1, all: r.perThousand.all / w[i]!.perThousand.all - 1, cost: r.fleetUsdPerHour / w[i]!.fleetUsdPerHour - 1 })),
      goal,
    };
  });
  console.log(JSON.stringify({ bench: 'steering', seeds, days, rails: RAILS, seconds, markets: rows }, null, 2));
  const f = (x: number, d = 2) => x.toFixed(d);
  console.log(
    [
      '',
      `| market | interruptions /1,000 Spot node-hours: alone → with steering | steering's replacements /1,000 | all disruptions /1,000: alone → with | cost $/h: alone → with | change: interruptions / all disruptions / cost | goal |`,
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.words} | ${f(r.without.interruptions)} → ${f(r.with.interruptions)} | ${f(r.with.replacements)} | ${f(r.without.all)} → ${f(r.with.all)} | ${f(r.without.usd)} → ${f(r.with.usd)} | ${pct(r.change.interruptions)} / ${pct(r.change.all)} / ${pct(r.change.cost)} | ${r.goal ? 'met' : 'missed'} |`,
      ),
      '',
      '| market | NodePool writes a day | writes held by the daily rail | pools entering avoid | of them healthy then | launches into avoided pools | steering\'s replacements in avoided pools | fallbacks to on-demand |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.market} | ${f(r.with.writesPerDay, 1)} | ${f(r.with.heldWrites, 1)} | ${f(r.with.avoidEntries, 1)} | ${f(r.with.avoidEntriesHealthy, 1)} | ${f(r.with.launchesIntoAvoided, 0)} | ${Math.round(r.with.replacementsOnPurpose * 100)}% | ${f(r.with.fallbacks, 1)} |`),
      ...rows
        .filter((r) => r.with.hoursUntilKeptOut)
        .map((r) => `\nTurning pool (${TURNING}, bad from day 8 to day 15): hours until kept out ${JSON.stringify(r.with.hoursUntilKeptOut)}, hours until back after it recovers ${JSON.stringify(r.with.hoursUntilBack)} (null: never).`),
      `\n${seeds} seeds × ${markets.length} markets × 2 runs of ${days} days in ${seconds} s.`,
    ].join('\n'),
  );
}
