// `npm run test:image`: builds the production image (scripts/image/build-image.mjs: debootstrap base, Node from npm,
// buildah), compiles what the tests run, then the `image` test project (test/image/) starts each service from it.
// Ends with one line "tests: N passed, N failed"; exits non-zero if the build or any test failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage, DEFAULT_TAG } from './image/build-image.mjs';

const out = mkdtempSync(join(tmpdir(), 'nodes-manager-image-test-'));
const reportFile = join(out, 'image-report.json');
const resultFile = join(out, 'image.json');
const finish = (passed, failed, broken) => {
  // Exit once the line is written: on a pipe stdout is asynchronous, and an immediate exit can lose it.
  process.stdout.write(`\ntests: ${passed} passed, ${failed} failed\n`, () => process.exit(broken || failed > 0 ? 1 : 0));
};

process.stdout.write('\n=== image build\n');
let report;
try {
  report = await buildImage({ tag: DEFAULT_TAG });
  writeFileSync(reportFile, JSON.stringify(report, null, 2));
} catch (err) {
  process.stderr.write(`image build failed: ${err.message}\n`);
  finish(0, 0, true);
}

process.stdout.write('\n=== image tests\n');
const env = {
  ...process.env,
  NODE_OPTIONS: '--experimental-vm-modules',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  NODES_MANAGER_IMAGE: DEFAULT_TAG,
  NODES_MANAGER_IMAGE_REPORT: reportFile,
};
const jest = spawnSync(process.execPath, ['node_modules/jest/bin/jest.js', '--selectProjects', 'image', '--runInBand', '--testTimeout=420000', '--forceExit', '--json', '--outputFile', resultFile], { stdio: 'inherit', env });
if (!existsSync(resultFile)) finish(0, 0, true);
const r = JSON.parse(readFileSync(resultFile, 'utf8'));
process.stdout.write(`\nimage ${report.image}: ${(report.bytes / 1e6).toFixed(1)} MB (${(report.gzipBytes / 1e6).toFixed(1)} MB gzipped), built in ${(report.buildMs / 1000).toFixed(0)} s\n`);
finish(r.numPassedTests, r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0), jest.status !== 0 || r.numTotalTests === 0);
