// The README's test command: typecheck, build, unit + integration tests, then the end-to-end suite (six processes)
// and the fault suite (docs/reliability.md),
// and one closing line "tests: N passed, N failed". Exits non-zero if anything failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = { ...process.env, NODE_OPTIONS: '--experimental-vm-modules', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
const out = mkdtempSync(join(tmpdir(), 'nodes-manager-test-'));
const run = (label, cmd, args, extraEnv = {}) => {
  process.stdout.write(`\n=== ${label}\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
  return r.status ?? 1;
};

let passed = 0;
let failed = 0;
let broken = false;

if (run('typecheck', process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json']) !== 0) broken = true;
if (run('typecheck (console)', process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'console/tsconfig.json']) !== 0) broken = true;
if (run('build', process.execPath, ['scripts/build.mjs']) !== 0) broken = true;

const jest = (label, projects, extra) => {
  const file = join(out, `${label}.json`);
  const status = run(label, process.execPath, ['node_modules/jest/bin/jest.js', '--selectProjects', ...projects, '--json', '--outputFile', file, ...extra]);
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
    if (r.numTotalTests === 0) broken = true;
  } else broken = true;
  if (status !== 0) broken = true;
};

const only = process.argv.slice(2);
if (!broken || process.env.CONTINUE_ON_BUILD_ERROR) {
  if (only.length === 0 || only.includes('unit')) jest('unit', ['unit'], ['--maxWorkers=2']);
  if (only.length === 0 || only.includes('integration')) jest('integration', ['integration'], ['--maxWorkers=2', '--testTimeout=90000', '--forceExit']);
  if (only.length === 0 || only.includes('e2e')) jest('e2e', ['e2e'], ['--runInBand', '--testTimeout=180000', '--forceExit']);
  if (only.length === 0 || only.includes('fault')) jest('fault', ['fault'], ['--runInBand', '--testTimeout=300000', '--forceExit']);
}

process.stdout.write(`\ntests: ${passed} passed, ${failed} failed\n`);
process.exit(broken || failed > 0 ? 1 : 0);
