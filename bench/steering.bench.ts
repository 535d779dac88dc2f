/**
 * Steering benchmark (docs/steering.md#figures): one seeded 30-day playout of ~500 Spot nodes across 16 pools whose
 * follow-up shares range from 5% to 80%, with clustered interruptions, run twice on the same weather — without
 * steering (Karpenter alone, with its 3-minute memory of an interrupted offering) and with steering (the real
 * pool-health rule, hourly rail and NodePool edit planner of @nodes-manager/steering, every 5 minutes). Prints JSON
 * and the markdown table of docs/benchmarks.md.
 *   npm run build && node dist/bench/steering.bench.js [--seed 26] [--days 30] [--seeds 1,2,3]
 * `--seeds` adds, after the seeded run, the same comparison on other weathers (other seeds: other reclaim times and
 * price jitter, the same pools and shares) — how much of the seeded result is the rule and how much the draw.
 */
import { DEFAULT_POOL_HEALTH_CONFIG, type Requirement } from '@nodes-manager/steering';
import { mulberry32, playout, type PlayoutOptions, type PoolSpec } from './support/steering-playout.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const SEED = arg('seed', 26);
const seedsArg = process.argv.indexOf('--seeds');
const EXTRA_SEEDS = seedsArg >= 0 ? (process.argv[seedsArg + 1] ?? '').split(',').filter(Boolean).map(Number) : [];
const DAYS = arg('days', 30);

const OD: Record<string, number> = { 'm5.large': 0.096, 'm5a.large': 0.086, 'm6i.large': 0.096, 'm6a.large': 0.0864, 'c5.large': 0.085, 'c6i.large': 0.085 };
/**
 * The follow-up share of each pool: [type, zone, share from day 0, share from day 15]. The cheapest pools are the
 * ones reclaimed most (that is why they are cheap), two change mid-month: m5a.large in 1a recovers, m6i.large in 1c
 * turns bad.
 */
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
/**
 * Spot at 30–40% of on-demand, two price models on the same weather: `cheap-is-bad`, the more often a pool is
 * reclaimed the cheaper it is (the first-half share sets the price: the pools Karpenter's cheapest-first launches
 * fill are the ones reclaimed — the case steering is for, and where avoiding costs most); `neutral`, the price does
 * not depend on the share.
 */
function poolsFor(model: 'cheap-is-bad' | 'neutral', seed = SEED): PoolSpec[] {
  const jitter = mulberry32(seed);
  return SHARES.map(([instanceType, zone, a, b]) => ({
    instanceType,
    zone,
    onDemandPerHour: OD[instanceType]!,
    spotPerHour: Math.round(OD[instanceType]! * (model === 'cheap-is-bad' ? 0.4 - 0.1 * a + 0.02 * (jitter() - 0.5) : 0.33 + 0.07 * jitter()) * 10_000) / 10_000,
    share: [
      [0, a],
      [15, b],
    ],
  }));
}
const req = (types: string[], zones: string[]): Requirement[] => [
  { key: 'node.kubernetes.io/instance-type', operator: 'In', values: types },
  { key: 'topology.kubernetes.io/zone', operator: 'In', values: zones },
  { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
];
const base: Omit<PlayoutOptions, 'steering'> = {
  seed: SEED,
  days: DAYS,
  tickMs: 5 * 60_000,
  pools: [],
  nodePools: [
    { name: 'general', nodes: 400, requirements: req(['m5.large', 'm5a.large', 'm6i.large', 'm6a.large'], ['us-east-1a', 'us-east-1b', 'us-east-1c']) },
    { name: 'compute', nodes: 100, requirements: req(['c5.large', 'c6i.large'], ['us-east-1a', 'us-east-1b']) },
  ],
  falseAlarmPerNodeHour: 1 / 96,
  hitShare: 0.3,
  horizonMs: 24 * 3_600_000,
  config: DEFAULT_POOL_HEALTH_CONFIG,
  rails: { maxAvoidPerHour: 3, maxExcludedShare: 0.5, keepCheapest: 3 },
  returnPerTick: 2,
};

/** DISRUPTION_USD — what one interruption costs beside the bill (SCORING_DISRUPTION_COST_USD's default): the second cost column. */
const DISRUPTION_USD = 1;
const hours = DAYS * 24;
const pctText = (x: number) => `${x >= 0 ? '' : '−'}${Math.abs(x * 100).toFixed(1)}%`;
const compare = (model: 'cheap-is-bad' | 'neutral', seed: number) => {
  const opts = { ...base, seed, pools: poolsFor(model, seed) };
  const without = playout({ ...opts, steering: false });
  const withSteering = playout({ ...opts, steering: true });
  const fewer = 1 - withSteering.interruptionsPer1000SpotNodeHours / without.interruptionsPer1000SpotNodeHours;
  const dearer = withSteering.fleetUsdPerHour / without.fleetUsdPerHour - 1;
  const all = (r: typeof without) => r.fleetUsdPerHour + (r.interruptions * DISRUPTION_USD) / hours;
  return {
    priceModel: model,
    without,
    with: withSteering,
    interruptionsFewer: Math.round(fewer * 1000) / 1000,
    costMore: Math.round(dearer * 1000) / 1000,
    costWithDisruptionsMore: Math.round((all(withSteering) / all(without) - 1) * 1000) / 1000,
    goalMet: fewer >= 0.4 && dearer <= 0.05,
  };
};
const scenarios = (['cheap-is-bad', 'neutral'] as const).map((model) => compare(model, SEED));
const result = { bench: 'steering', seed: SEED, days: DAYS, nodes: base.nodePools.reduce((s, n) => s + n.nodes, 0), pools: SHARES.length, goal: { interruptionsFewerAtLeast: 0.4, costMoreAtMost: 0.05 }, scenarios };
console.log(JSON.stringify(result, null, 2));
const WORDS = { 'cheap-is-bad': 'the cheapest pools are the most reclaimed', neutral: 'prices independent of reclaims' };
console.log(
  [
    '',
    '| prices | run | interruptions per 1,000 Spot node-hours | interruptions | fleet cost per hour | with $1 per interruption | pools entering avoid | NodePool writes |',
    '|---|---|---|---|---|---|---|---|',
    ...scenarios.flatMap((sc) =>
      [sc.without, sc.with].map(
        (r) =>
          `| ${WORDS[sc.priceModel]} | ${r.steering ? 'with steering' : 'without'} | ${r.interruptionsPer1000SpotNodeHours.toFixed(2)} | ${r.interruptions.toLocaleString('en-US')} | $${r.fleetUsdPerHour.toFixed(2)} | $${(r.fleetUsdPerHour + (r.interruptions * DISRUPTION_USD) / hours).toFixed(2)} | ${r.avoidEntries} | ${r.nodePoolWrites} |`,
      ),
    ),
    '',
    ...scenarios.map(
      (sc) =>
        `${WORDS[sc.priceModel]}: **${pctText(Math.abs(sc.interruptionsFewer))} ${sc.interruptionsFewer >= 0 ? 'fewer' : 'more'} interruptions** at **${sc.costMore >= 0 ? '+' : ''}${pctText(sc.costMore)} fleet cost** (${sc.costWithDisruptionsMore >= 0 ? '+' : ''}${pctText(sc.costWithDisruptionsMore)} counting $${DISRUPTION_USD} per interruption) — goal ≥ 40% fewer at ≤ 5% more: ${sc.goalMet ? 'met' : 'not met'}.`,
    ),
  ].join('\n'),
);
if (EXTRA_SEEDS.length > 0) {
  const rows = EXTRA_SEEDS.flatMap((seed) => (['cheap-is-bad', 'neutral'] as const).map((model) => ({ seed, ...compare(model, seed) })));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    [
      '',
      '| seed | prices | fewer interruptions | fleet cost | goal |',
      '|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.seed} | ${WORDS[r.priceModel]} | ${pctText(r.interruptionsFewer)} | ${r.costMore >= 0 ? '+' : ''}${pctText(r.costMore)} | ${r.goalMet ? 'met' : 'not met'} |`),
      ...(['cheap-is-bad', 'neutral'] as const).map((m) => {
        const of = rows.filter((r) => r.priceModel === m);
        return `| mean of ${of.length} | ${WORDS[m]} | ${pctText(mean(of.map((r) => r.interruptionsFewer)))} | ${mean(of.map((r) => r.costMore)) >= 0 ? '+' : ''}${pctText(mean(of.map((r) => r.costMore)))} | met in ${of.filter((r) => r.goalMet).length} |`;
      }),
    ].join('\n'),
  );
}
