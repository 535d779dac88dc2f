// No source file grows past 500 lines unless its first lines say why (a comment containing "longer than 500 lines"):
// a file that long usually holds several things, and its name can say only one (docs/design.md#layering).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const LIMIT = 500;

describe('source files', () => {
  it(`stay within ${LIMIT} lines, or say at their top why not`, () => {
    const sources = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.mjs', '*.cjs'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && existsSync(f));
    const long = sources
      .map((f) => ({ f, lines: readFileSync(f, 'utf8').split('\n') }))
      .filter(({ lines }) => lines.length > LIMIT && !/longer than 500 lines/i.test(lines.slice(0, 8).join('\n')))
      .map(({ f, lines }) => `${f}: ${lines.length} lines`);
    expect(long).toEqual([]);
  });
});
