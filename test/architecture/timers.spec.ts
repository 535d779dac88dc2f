// Time belongs to the Clock (docs/runtime.md#timers-and-the-clock): code under services/ never sleeps and sets no
// timer of its own. "Not yet" is a reconcile's `requeueAfterMs` or a controller's `enqueueAfter`, which the runtime
// (libs/platform/src/runtime) arms on the injected Clock — so a FakeClock's `step` drives every wait in a test.
// A call of `setTimeout`, `setInterval` or a `sleep` (any, the Clock's included), or an import of `timers/promises`,
// is allowed only in the files listed below, each with its reason; a new one fails here, and so does an entry whose
// file no longer has one. A request's own deadline (`AbortSignal.timeout`) is not a timer of the behaviour and is not
// counted. Tests, builders and integration tests are not checked.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Each file of services/ that may still use a timer of its own, and why. */
const ALLOWED: Record<string, string> = {
  'services/api-gateway/src/adapters/inbound/stream.controller.ts': "one HTTP stream's keep-alive ping and its token's expiry: the connection's real time, whatever the Clock",
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
  /^services\/.+\.ts$/.test(f) && !/\.(spec|int|e2e|fault|bench)\.ts$/.test(f) && !/(^|\/)test\//.test(f) && existsSync(f);

const servicesSources = (): Map<string, string> =>
  new Map(execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'services'], { encoding: 'utf8' }).split('\n').filter(checked).map((f) => [f, readFileSync(f, 'utf8')]));

describe('timers in services', () => {
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
});
