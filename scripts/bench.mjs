// `npm run bench`: builds, then runs every benchmark and prints their JSON results. Each reports ratios against a
// baseline measured in the same run. Sizes can be lowered for a quick look: `npm run bench -- --quick`. Names pick
// benchmarks: `node scripts/bench.mjs steering` (outbox, tracing, scoring, consolidation, retention, steering, sync, kube-scale, sim-scale).
import { spawnSync } from 'node:child_process';

const quick = process.argv.includes('--quick');
const picked = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
const run = (label, args) => {
  const name = args.find((a) => a.startsWith('dist/bench/')).replace('dist/bench/', '').replace(/\.(bench\.)?js$/, '');
  if (picked.length > 0 && !picked.some((p) => name.startsWith(p))) return;
  process.stdout.write(`\n=== ${label}\n`);
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  if (r.status !== 0) {
    process.stdout.write(`${label} failed (exit ${r.status})\n`);
    process.exitCode = 1;
  }
};

if (spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' }).status !== 0) process.exit(1);
run('outbox: windowed confirms vs awaiting each', ['dist/bench/outbox.bench.js', '--events', quick ? '2000' : '10000']);
run('tracing: the controller runtime with tracing off (baseline), then on', ['dist/bench/tracing.bench.js', '--keys', quick ? '20000' : '100000']);
run('scoring: placement, simulate, consolidation at 5,000 nodes', ['dist/bench/scoring.bench.js']);
run('consolidation plan on the generated fleet at 1k to 50k nodes (scheduler-scoring\'s projections, no simulator)', [
  '--max-old-space-size=8192', 'dist/bench/consolidation-scale.bench.js', '--sizes', quick ? '1000,5000' : '1000,5000,20000,50000',
]);
run('retention: table growth at 5,000 nodes, before and after, with the retention controllers', ['--max-old-space-size=4096', 'dist/bench/retention.bench.js', ...(quick ? ['--days', '3', '--sample', '500'] : [])]);
run('read path: GET /api/v1/nodes through the gateway vs the direct SQL read of the same page', ['dist/bench/read-path.bench.js', ...(quick ? ['--seconds', '3', '--rounds', '1'] : [])]);
run('steering: 30-day playouts of six Spot markets × 10 seeds, Karpenter alone and with steering (drift modelled)', ['dist/bench/steering.bench.js', ...(quick ? ['--seeds', '2'] : [])]);
run('node-sync: first sync, no-change cycle, COPY + merge baseline', [
  'dist/bench/sync.bench.js',
  ...(quick ? ['--nodes', '500', '--pods', '15000'] : ['--nodes', '5000', '--pods', '150000']),
]);
// The scaling table: resumable per row in bench-results/kube-scale (delete it, or pass --fresh, to measure again).
run('watching services at 1k to 100k nodes, WatchList and paged LIST', [
  'dist/bench/kube-scale.bench.js', '--sizes', quick ? '200,1000' : '1000,5000,20000,50000,100000', '--out', quick ? 'bench-results/kube-scale-quick' : 'bench-results/kube-scale',
]);
run('simulator: 100,000 nodes / ~1,000,000 pods', ['--expose-gc', '--max-old-space-size=16384', 'dist/bench/sim-scale.js', ...(quick ? ['500', '30'] : ['100000', '10'])]);
