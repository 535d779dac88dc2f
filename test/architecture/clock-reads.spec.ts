// Time is an argument (docs/design.md#decisions): code under libs/ and services/ takes "now" from the injected Clock.
// A direct read of the wall clock (`Date.now()`, `new Date()`) or of a monotonic timer (`performance.now()`,
// `process.hrtime`) is allowed only in the files listed below, each with its reason; a new read elsewhere fails here,
// and so does an entry whose file no longer reads the clock. Tests, builders and integration tests are not checked.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Each file that may read the clock directly, and why. */
const ALLOWED: Record<string, string> = {
  'libs/platform/src/clock/clock.ts': 'SystemClock: the one reading of the wall clock behind the Clock every service is given',
  'libs/platform/src/messaging/commands.ts': 'duration: command handling time for its histogram and log line (monotonic)',
  'libs/platform/src/messaging/outbox-relay.ts': 'duration: the shutdown flush is bounded by a monotonic deadline',
  'libs/platform/src/bootstrap/bootstrap.ts': 'duration: how long the shutdown took, for its log line (monotonic)',
  'libs/platform/src/runtime/controller.ts': "duration: each reconcile's time for its histogram (monotonic)",
  'libs/platform/src/kube/informer.ts': 'duration: back-off, staleness and list durations measured on a monotonic timer (injectable as `now`)',
  'libs/platform/src/testing/event-collector.ts': "test support: when a message arrived, set against the test's own wall-clock marks of its faults",
  'libs/platform/src/testing/wait-for.ts': 'duration: the polling deadline of a test helper (monotonic)',
  'services/api-gateway/src/adapters/inbound/request-log.middleware.ts': 'duration: request time for its histogram and log line (monotonic)',
  'services/node-sync/src/node-sync.service.ts': 'duration: how long a sync took, for its event and log line (monotonic)',
  'libs/sim/src/cli.ts': "the simulators' own clock: the wall clock, shared by the fleet and both simulators",
  'libs/sim/src/kube/kube-sim.ts': "the Kubernetes simulator's default clock (tests and stories pass their own)",
  'libs/sim/src/ec2/ec2-sim.ts': "the EC2 simulator's default clock (tests and stories pass their own)",
};

const READS: readonly RegExp[] = [/\bDate\.now\b/, /\bnew Date\s*\(\s*\)/, /\bnew Date\b(?!\s*\()/, /\bperformance\.now\b/, /\bprocess\.hrtime\b/];

/** clockReads — the lines of `text` that read the clock, comments left out. */
function clockReads(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  return code
    .split('\n')
    .map((line, i) => ({ line: line.replace(/(^|\s)\/\/.*$/, ''), n: i + 1 }))
    .filter(({ line }) => READS.some((r) => r.test(line)))
    .map(({ line, n }) => `${n}: ${line.trim()}`);
}

const checked = (f: string): boolean =>
  /^(libs|services)\/.+\.ts$/.test(f) && !/\.(spec|int|e2e|fault|bench)\.ts$/.test(f) && !/(^|\/)test\//.test(f) && existsSync(f);

describe('reads of the clock', () => {
  it('are found in code and not in comments or in dates built from a value', () => {
    const sample = [
      '/** defaults to Date.now */',
      'const a = new Date(row.at); // not Date.now()',
      'const b = Date.now();',
      'const c = new Date();',
      'const d = performance.now() - t0;',
      "const e = new Date('2026-01-01T00:00:00Z');",
      'const f = process.hrtime.bigint();',
    ].join('\n');
    expect(clockReads(sample)).toEqual(['3: const b = Date.now();', '4: const c = new Date();', '5: const d = performance.now() - t0;', '7: const f = process.hrtime.bigint();']);
  });

  it('go through the injected Clock, except in the files listed with their reason', () => {
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'libs', 'services'], { encoding: 'utf8' }).split('\n').filter(checked);
    const reading = new Map(files.map((f) => [f, clockReads(readFileSync(f, 'utf8'))] as const).filter(([, reads]) => reads.length > 0));
    const unlisted = [...reading].filter(([f]) => !(f in ALLOWED)).map(([f, reads]) => `${f} — ${reads.join(' | ')}`);
    const stale = Object.keys(ALLOWED).filter((f) => !reading.has(f)).map((f) => `${f} no longer reads the clock: remove it from ALLOWED`);
    expect([...unlisted, ...stale]).toEqual([]);
  });
});
