// Time belongs to the Clock (docs/runtime.md#timers-and-the-clock): code under services/ and libs/platform/ never
// sleeps and sets no timer of its own. "Not yet" is a reconcile's `requeueAfterMs` or a controller's `enqueueAfter`, which the runtime
// (libs/platform/src/runtime) arms on the injected Clock — so a FakeClock's `step` drives every wait in a test.
// A call of `setTimeout`, `setInterval` or a `sleep` (any, the Clock's included), or an import of `timers/promises`,
// is allowed only in the files listed below, each with its reason; a new one fails here, and so does an entry whose
// file no longer has one. A request's own deadline (`AbortSignal.timeout`) is not a timer of the behaviour and is not
// counted. Tests, builders and integration tests are not checked.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Each file of services/ and libs/platform/ that may still use a timer of its own (or sleep), and why. */
const ALLOWED: Record<string, string> = {
  'services/api-gateway/src/adapters/inbound/stream.controller.ts': "one HTTP stream's keep-alive ping and its token's expiry: the connection's real time, whatever the Clock",
  // The Clock itself and the runtime that waits on it.
  'libs/platform/src/clock/clock.ts': "the SystemClock: the one place real timers are set for the behaviour's time",
  'libs/platform/src/clock/fake-clock.ts': "the FakeClock's own sleep (on its own timers, stepped by tests)",
  'libs/platform/src/runtime/retry.ts': "retryOnClock waits on the Clock's sleep",
  'libs/platform/src/pause/pause-gate.ts': "its bounded wait for a fresh answer is the Clock's sleep",
  'libs/platform/src/runtime/controller.ts': "stop's bound guards the process's termination grace period: real time, whatever the Clock",
  // Deadlines and reconnects of a connection: real time, whatever the Clock says (a FakeClock would never end them).
  'libs/platform/src/messaging/amqp-connection.ts': "the broker's reconnect delay and the bound on a broker round trip",
  'libs/platform/src/messaging/rmq-command-bus.ts': "a command's reply deadline",
  'libs/platform/src/messaging/event-publisher.ts': "a publish confirm's deadline",
  'libs/platform/src/messaging/commands.ts': "the bound on draining command handlers at shutdown",
  'libs/platform/src/health/health.ts': "a health check's 3 s deadline",
  'libs/platform/src/tracing/tracing.ts': "the bound on flushing spans at shutdown",
  'libs/platform/src/bootstrap/bootstrap.ts': "the process's forced exit after its termination grace period",
  // Not on the Clock yet: each polls or retries in real time, and the tests that step a FakeClock rely on it.
  'libs/platform/src/messaging/outbox-relay.ts': "its poll and its bounded shutdown flush (real time: it must deliver whatever a FakeClock says)",
  'libs/platform/src/kube/informer.ts': "its resync, watch deadlines and re-list back-off (a connection's real time)",
  'libs/platform/src/leader/leader-elector.ts': 'its retry of the lock every retryMs (real time: a standby must take over whatever a FakeClock says)',
};

const TIMERS: readonly RegExp[] = [/(?<![\w.])setTimeout\s*\(/, /(?<![\w.])setInterval\s*\(/, /(?<!\w)sleep\s*\(/, /['"](node:)?timers\/promises['"]/];

/** timerUses — the lines of `text` that set a timer or sleep, comments left out. */
export function timerUses(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  return code
    .split('\n')
    .map((line, i) => ({ line: line.replace(/(^|\s)\/\/.*$/, ''), n: i + 1 }))
    .filter(({ line }) => TIMERS.some((r) => r.test(line)))
    .map(({ line, n }) => `${n}: ${line.trim()}`);
}

/** timerProblems — each file of `sources` (path → text) that sets a timer and is not listed, and each stale entry. */
function timerProblems(sources: ReadonlyMap<string, string>): string[] {
  const using = new Map([...sources].map(([f, text]) => [f, timerUses(text)] as const).filter(([, uses]) => uses.length > 0));
  const unlisted = [...using].filter(([f]) => !(f in ALLOWED)).map(([f, uses]) => `${f} — ${uses.join(' | ')}`);
  const stale = Object.keys(ALLOWED).filter((f) => !using.has(f)).map((f) => `${f} no longer sets a timer: remove it from ALLOWED`);
  return [...unlisted, ...stale];
}

const checked = (f: string): boolean =>
  /^(services|libs\/platform\/src)\/.+\.ts$/.test(f) &&
  !/\.(spec|int|e2e|fault|bench)\.ts$/.test(f) &&
  !/(^|\/)test\//.test(f) &&
  !/^libs\/platform\/src\/testing\//.test(f) &&
  existsSync(f);

/** The checked sources: services/ and libs/platform/ (its test helpers aside). */
const servicesSources = (): Map<string, string> =>
  new Map(
    execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'services', 'libs/platform/src'], { encoding: 'utf8' })
      .split('\n')
      .filter(checked)
      .map((f) => [f, readFileSync(f, 'utf8')]),
  );

describe('timers in services and libs/platform', () => {
  it('are found in code — a sleep, a timeout, an interval — and not in comments, socket options or request deadlines', () => {
    const planted = [
      '/** sleeps with setTimeout */',
      'await new Promise((r) => setTimeout(r, 2_000));',
      'const t = setInterval(tick, 1000); // every second',
      'await sleep(API_RETRY_MS);',
      'await this.clock.sleep(500);',
      "import { setTimeout as wait } from 'node:timers/promises';",
      'req.socket.setTimeout(0);',
      'const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });',
      'const asleep = isSleeping(node);',
    ].join('\n');
    expect(timerUses(planted)).toEqual([
      '2: await new Promise((r) => setTimeout(r, 2_000));',
      '3: const t = setInterval(tick, 1000);',
      '4: await sleep(API_RETRY_MS);',
      '5: await this.clock.sleep(500);',
      "6: import { setTimeout as wait } from 'node:timers/promises';",
    ]);
  });

  it('are left to the runtime, except in the files listed with their reason', () => {
    expect(timerProblems(servicesSources())).toEqual([]);
  });

  it('fail on a sleep planted in a service', () => {
    const planted = new Map(servicesSources());
    const file = 'services/uncordon/src/drain/drain.controller.ts';
    expect(planted.has(file)).toBe(true);
    planted.set(file, `${planted.get(file)}\nexport const pause = () => new Promise((r) => setTimeout(r, 2_000));\n`);
    expect(timerProblems(planted)).toEqual([expect.stringMatching(/^services\/uncordon\/src\/drain\/drain\.controller\.ts — \d+: export const pause = \(\) => new Promise\(\(r\) => setTimeout\(r, 2_000\)\);$/)]);
  });

  it('fail on a timer planted in libs/platform', () => {
    const planted = new Map(servicesSources());
    const file = 'libs/platform/src/runtime/work-queue.ts';
    expect(planted.has(file)).toBe(true);
    planted.set(file, `${planted.get(file)}\nexport const tick = (fn: () => void) => setInterval(fn, 1_000);\n`);
    expect(timerProblems(planted)).toEqual([expect.stringMatching(/^libs\/platform\/src\/runtime\/work-queue\.ts — \d+: export const tick = \(fn: \(\) => void\) => setInterval\(fn, 1_000\);$/)]);
  });
});
