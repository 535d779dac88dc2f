// No source file grows past 500 lines unless its first lines say why (a comment containing "longer than 500 lines"):
// a file that long usually holds several things, and its name can say only one (docs/design.md#layering).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const LIMIT = 500;

/** tooLong — the files of `sources` (path → text) past the limit that do not say at their top why. */
function tooLong(sources: ReadonlyMap<string, string>): string[] {
  return [...sources]
    .map(([f, text]) => ({ f, lines: text.split('\n') }))
    .filter(({ lines }) => lines.length > LIMIT && !/longer than 500 lines/i.test(lines.slice(0, 8).join('\n')))
    .map(({ f, lines }) => `${f}: ${lines.length} lines`);
}

/** The checked sources: TypeScript (the console's .tsx included) and the scripts, tracked or new. */
const sourceFiles = () =>
  execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx', '*.mjs', '*.cjs'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && existsSync(f));

describe('source files', () => {
  it(`stay within ${LIMIT} lines, or say at their top why not`, () => {
    const files = sourceFiles();
    expect(files.filter((f) => f.endsWith('.tsx')).length).toBeGreaterThan(0);
    expect(tooLong(new Map(files.map((f) => [f, readFileSync(f, 'utf8')])))).toEqual([]);
  });

  it('fails on a planted 600-line file, and not on one that says at its top why it is longer', () => {
    const body = Array.from({ length: 599 }, (_, i) => `export const line${i} = ${i};`).join('\n');
    const planted = new Map([
      ['services/uncordon/src/planted.ts', body],
      ['console/src/views/planted.tsx', body],
      ['libs/platform/src/explained.ts', `// Longer than 500 lines: one generated table, split it and the order is lost.\n${body}`],
      ['libs/platform/src/short.ts', body.split('\n').slice(0, LIMIT - 1).join('\n')],
    ]);
    expect(tooLong(planted)).toEqual(['services/uncordon/src/planted.ts: 599 lines', 'console/src/views/planted.tsx: 599 lines']);
  });
});
