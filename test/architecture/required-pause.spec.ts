// The fleet-wide pause is required wherever an action is disruptive (docs/pause.md#required): a class that injects
// the service's pause gate (`PAUSE_GATE`) is a disruptive path, and it must not start without one. Three checks:
// - statically, no injection of the gate is optional (`@Optional()`, `pause?:`, `| undefined`), and no code asks
//   whether the gate is there (`this.pause ? … : { go: true }`): code written for a missing gate lets everything by;
// - at start, every such class wired without the gate refuses to start, naming `PAUSE_GATE` (Nest's dependency
//   resolution): each one is built here with every other dependency stubbed and the gate left out.
// Each check is shown failing on a planted violation.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PAUSE_GATE } from '@nodes-manager/platform';

const INJECTS_PAUSE = /@Inject\(\s*PAUSE_GATE\s*\)/;

/** optionalPause — each injection of the pause gate in `text` that lets the class start without it. */
export function optionalPause(text: string): string[] {
  const out: string[] = [];
  const re = /((?:@\w+\([^()]*\)\s*)+)(?:(?:private|protected|public|readonly)\s+)*(\w+)(\??)\s*:\s*([^,)]+)/g;
  for (const m of text.matchAll(re)) {
    const [whole, decorators, name, question, type] = m as unknown as [string, string, string, string, string];
    if (!INJECTS_PAUSE.test(decorators)) continue;
    if (/@Optional\(\)/.test(decorators) || question === '?' || /\|\s*(undefined|null)/.test(type)) out.push(`${name}: ${whole.replace(/\s+/g, ' ').trim()}`);
  }
  return out;
}

/**
 * absentGate — the lines of `text` that ask whether the pause gate is there (`this.pause ? … : { go: true }`,
 * `if (!this.pause)`, `this.pause?.check`): code written for a gate that may be missing lets everything through.
 */
export const absentGate = (text: string): string[] =>
  text
    .split('\n')
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => /!\s*this\.pause\b(?!\.)|\bthis\.pause\s*(\?|&&|\|\||===?\s*undefined|!==?\s*undefined)/.test(line) && !/^\s*(\/\/|\*)/.test(line))
    .map(({ line, n }) => `${n}: ${line.trim()}`);

const sourceFile = (f: string): boolean => /\.ts$/.test(f) && !/\.(spec|int|e2e|fault|bench)\.ts$/.test(f) && !/(^|\/)test\//.test(f) && existsSync(f);
const sources = (): Map<string, string> =>
  new Map(execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'services', 'libs'], { encoding: 'utf8' }).split('\n').filter(sourceFile).map((f) => [f, readFileSync(f, 'utf8')]));

function staticProblems(files: ReadonlyMap<string, string>): string[] {
  return [...files].flatMap(([f, text]) => [
    ...optionalPause(text).map((p) => `${f}: the pause gate is optional — ${p}`),
    ...absentGate(text).map((l) => `${f}: the pause gate's absence is allowed for — ${l}`),
  ]);
}

/** disruptivePaths — each class of services/ that injects the pause gate, with its file. */
const disruptivePaths = (files: ReadonlyMap<string, string>): { file: string; name: string }[] =>
  [...files]
    .filter(([f, text]) => f.startsWith('services/') && INJECTS_PAUSE.test(text))
    .flatMap(([file, text]) => [...text.matchAll(/export class (\w+)[^{]*\{[\s\S]*?constructor\(([\s\S]*?)\)\s*\{/g)].filter((m) => INJECTS_PAUSE.test(m[2]!)).map((m) => ({ file, name: m[1]! })));

/** stub — answers every method with a stub (metrics' `gauge().inc`, …); not a thenable, so nothing awaits it forever. */
const stub = (): object => new Proxy({}, { get: (_t, key) => (key === 'then' ? undefined : () => stub()) });

interface SelfParam {
  index: number;
  param: unknown;
}

/** startWithout — builds `cls` with every constructor dependency stubbed but `left` out: resolves if it starts. */
async function startWithout(cls: new (...args: never[]) => unknown, left: symbol): Promise<void> {
  const types = (Reflect.getMetadata('design:paramtypes', cls) as unknown[] | undefined) ?? [];
  const self = (Reflect.getMetadata('self:paramtypes', cls) as SelfParam[] | undefined) ?? [];
  const tokens = types.map((t, i) => self.find((s) => s.index === i)?.param ?? t);
  const stubs = [...new Set(tokens)].filter((t) => t !== left).map((t) => ({ provide: t as symbol, useValue: stub() }));
  const ref = await Test.createTestingModule({ providers: [...stubs, cls] }).compile();
  await ref.close();
}

describe('the pause on disruptive paths', () => {
  const files = sources();

  it('finds an optional gate and code for a missing one, not a required gate, a gated step or a comment', () => {
    const planted = [
      'constructor(',
      '  @Inject(CLOCK) private readonly clock: Clock,',
      '  @Optional() @Inject(PAUSE_GATE) private readonly pause?: PauseGate,',
      '  @Inject(PAUSE_GATE) private readonly gate: PauseGate | undefined,',
      '  @Inject(PAUSE_GATE) private readonly required: PauseGate,',
      ') {}',
      '// a comment about this.pause ? x : { go: true }',
      'const held = this.pause ? await this.pause.checkNow("optimize") : { go: true as const };',
      "const pause = step.action === 'evict' ? this.pause.check('drain') : { go: true as const };",
      'if (!this.pause) return undefined;',
    ].join('\n');
    expect(optionalPause(planted)).toEqual([
      'pause: @Optional() @Inject(PAUSE_GATE) private readonly pause?: PauseGate',
      'gate: @Inject(PAUSE_GATE) private readonly gate: PauseGate | undefined',
    ]);
    expect(absentGate(planted)).toEqual(['8: const held = this.pause ? await this.pause.checkNow("optimize") : { go: true as const };', '10: if (!this.pause) return undefined;']);
  });

  it('is never optional, and never stood in for', () => {
    expect(staticProblems(files)).toEqual([]);
  });

  it('fails on a planted optional gate in a service', () => {
    const planted = new Map(files);
    const file = 'services/uncordon/src/drain/drain.service.ts';
    planted.set(file, planted.get(file)!.replace('@Inject(PAUSE_GATE) private readonly pause: PauseGate', '@Optional() @Inject(PAUSE_GATE) private readonly pause?: PauseGate'));
    expect(staticProblems(planted)).toEqual([expect.stringMatching(/^services\/uncordon\/src\/drain\/drain\.service\.ts: the pause gate is optional/)]);
  });

  const paths = disruptivePaths(files);

  it('are found: every class that injects the gate', () => {
    expect(paths.map((p) => p.name)).toEqual(expect.arrayContaining(['SteeringService', 'OptimizeReplaceService', 'UncordonService', 'DrainService', 'FencingService']));
  });

  it.each(paths.map((p) => [p.name, p.file] as const))('%s (%s) refuses to start without the pause, naming PAUSE_GATE', async (name, file) => {
    const mod = (await import(resolve(file))) as Record<string, new (...args: never[]) => unknown>;
    await expect(startWithout(mod[name]!, PAUSE_GATE)).rejects.toThrow(/PAUSE_GATE/);
  });

  it('fails on a planted class whose gate is optional: it starts without it', async () => {
    const { OptionalPauseFixture } = await import('./fixtures/optional-pause.fixture.js');
    await expect(startWithout(OptionalPauseFixture, PAUSE_GATE)).resolves.toBeUndefined();
    expect(optionalPause(readFileSync('test/architecture/fixtures/optional-pause.fixture.ts', 'utf8'))).toHaveLength(1);
  });
});
