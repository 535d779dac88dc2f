// The README's test command: typecheck, build, unit and integration tests, the end-to-end suite (six processes) and
// the fault suite (docs/reliability.md), and one closing line "tests: N passed, N failed". Exits non-zero if anything
// failed. `node scripts/test.mjs unit e2e` runs only those suites (after the typecheck and the build).
//
// What does not depend on each other runs at the same time (docs/design.md#tests): both typechecks
// beside the build and the tests (the tests run the sources, not what tsc checks); once the build is there, two Jest
// runs side by side — unit with integration, and end-to-end with fault — each with two workers, the longest kinds of
// file first, and the demo's real-time story in a third beside them. Test files that run at the same time do not share a queue: each Jest worker has its own RabbitMQ vhost
// (scripts/jest/rabbitmq-vhosts.mjs). Where no vhost can be made, the end-to-end and fault files run one at a time,
// as their queue names are global.
// Each job's output is printed as it ends, with its wall time; a table of the suites' times closes the run.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolation } from './jest/rabbitmq-vhosts.mjs';

const env = { ...process.env, NODE_OPTIONS: '--experimental-vm-modules', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', FORCE_COLOR: process.stdout.isTTY ? '1' : '0' };
// TEST_OUTPUT_DIR keeps each job's log and Jest's JSON report (per-file times) after the run; by default they are removed.
const keep = process.env.TEST_OUTPUT_DIR;
const out = keep ? (mkdirSync(keep, { recursive: true }), keep) : mkdtempSync(join(tmpdir(), 'nodes-manager-test-'));
const t0 = performance.now();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
const wall = [];

/** job — runs a command with its output kept aside, printed in one piece when it ends; resolves to its exit status. */
function job(label, args) {
  const log = join(out, `${label.replace(/\W+/g, '-')}.log`);
  const start = performance.now();
  process.stdout.write(`[${seconds(start - t0)}] started: ${label}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const file = createWriteStream(log);
    child.stdout.pipe(file, { end: false });
    child.stderr.pipe(file, { end: false });
    child.on('close', (code, signal) => {
      file.end(() => {
        const took = performance.now() - start;
        wall.push({ label, ms: took });
        process.stdout.write(`\n=== ${label} (${seconds(took)}, ended at ${seconds(performance.now() - t0)})\n${readFileSync(log, 'utf8')}`);
        resolve(code ?? (signal ? 1 : 0));
      });
    });
  });
}

// TypeScript 7 (the native compiler) checks the types; TypeScript 5 stays for the tools that need its JS API (docs/stack.md).
const tsc = (project) => ['node_modules/typescript-native/bin/tsc', '--noEmit', '-p', project];

let passed = 0;
let failed = 0;
let broken = false;
const suites = [];

/** The suite of a test file, by its name. */
const suiteOf = (file) => (/\.spec\.ts$/.test(file) ? 'unit' : /\.int\.ts$/.test(file) ? 'integration' : /\.e2e\.ts$/.test(file) ? 'e2e' : 'fault');

/** jest — one Jest run over `projects`; its counts added, and each suite's span and summed file time kept. */
async function jest(label, projects, extra) {
  const file = join(out, `${label.replace(/\W+/g, '-')}.json`);
  const status = await job(label, ['node_modules/jest/bin/jest.js', '--selectProjects', ...projects, '--json', '--outputFile', file, ...extra]);
  if (!existsSync(file)) return void (broken = true);
  const r = JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
  if (r.numTotalTests === 0 || status !== 0) broken = true;
  for (const suite of projects) {
    const files = r.testResults.filter((t) => suiteOf(t.name) === suite && t.endTime);
    if (!files.length) continue;
    const span = Math.max(...files.map((t) => t.endTime)) - Math.min(...files.map((t) => t.startTime));
    const slowest = files.reduce((a, b) => (b.endTime - b.startTime > a.endTime - a.startTime ? b : a));
    suites.push({ suite: label === suite || projects.length > 1 ? suite : `${suite} (${label})`, files: files.length, span, summed: files.reduce((s, t) => s + t.endTime - t.startTime, 0), slowest });
  }
}

const only = process.argv.slice(2);
const wanted = (suite) => only.length === 0 || only.includes(suite);
const isolated = (await isolation()) !== null;

const typechecks = Promise.all([job('typecheck', tsc('tsconfig.json')), job('typecheck (console)', tsc('console/tsconfig.json'))]);
const build = await job('build', ['scripts/build.mjs']);
if (build !== 0) broken = true;

// The demo's end-to-end file (`npm run demo` as a newcomer runs it) tells its story in real time — about two minutes,
// nearly all of it waiting on grace periods and a ledger horizon — on its own embedded PostgreSQL and in-process bus,
// so it runs in a Jest run of its own beside the others from the start instead of holding one of the two system
// workers for its whole length.
const DEMO = 'test/e2e/demo.e2e.ts';

if (!broken || process.env.CONTINUE_ON_BUILD_ERROR) {
  const fast = ['unit', 'integration'].filter(wanted);
  const slow = ['e2e', 'fault'].filter(wanted);
  const workers = (variable, fallback) => Math.max(1, Number(process.env[variable] ?? fallback) || fallback);
  // Two runs side by side, two workers each: TEST_WORKERS for unit + integration, TEST_SYSTEM_WORKERS for end-to-end
  // + fault. Each end-to-end or fault file starts six to twelve service processes with their database pools, so no
  // more than two of them run at once: four at once (one run of four workers, tried) passed PostgreSQL's 100
  // connections. Within each run the longest kinds of file go first (scripts/jest/sequencer.cjs). Without a vhost
  // per worker the end-to-end and fault files run one at a time (their queue names are global).
  const systemWorkers = isolated ? workers('TEST_SYSTEM_WORKERS', 2) : 1;
  const demo = slow.includes('e2e') && isolated;
  await Promise.all([
    fast.length && jest(fast.join(' + '), fast, [`--maxWorkers=${workers('TEST_WORKERS', 2)}`, '--forceExit']),
    slow.length && jest(slow.join(' + '), slow, [systemWorkers > 1 ? `--maxWorkers=${systemWorkers}` : '--runInBand', '--forceExit', ...(demo ? ['--testPathIgnorePatterns', DEMO] : [])]),
    demo && jest('demo', ['e2e'], ['--runInBand', '--forceExit', '--runTestsByPath', DEMO]),
  ]);
}
if ((await typechecks).some((s) => s !== 0)) broken = true;

const rows = [
  ...wall.map((w) => `  ${w.label.padEnd(24)} ${seconds(w.ms).padStart(6)} wall`),
  ...suites.map((s) => `  ${s.suite.padEnd(24)} ${seconds(s.span).padStart(6)} from its first file to its last, ${s.files} files, ${seconds(s.summed)} summed; slowest ${s.slowest.name.replace(`${process.cwd()}/`, '')} ${seconds(s.slowest.endTime - s.slowest.startTime)}`),
];
process.stdout.write(`\ntimes (total ${seconds(performance.now() - t0)}):\n${rows.join('\n')}\n`);
if (!keep) rmSync(out, { recursive: true, force: true });
// Exit once the closing line is written: on a pipe (`npm test | tee`, as .ci/run reads it) stdout is written
// asynchronously, and exiting at once cut the jobs' logs short and lost this line.
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed\n`, () => process.exit(broken || failed > 0 ? 1 : 0));
