// The repository carries its own design: no file cites a document outside it, and every link to a document inside it
// (a Markdown link, or a `docs/<page>.md#anchor` mention in code) names a file that exists and a heading it has.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && existsSync(f) && /\.(ts|mjs|cjs|js|md|yaml|yml|json)$/.test(f) && f !== 'package-lock.json');
const text = new Map(tracked.map((f) => [f, readFileSync(f, 'utf8')]));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string): string =>
  heading.trim().toLowerCase().replace(/[`*_]/g, '').replace(/[^\p{L}\p{N} -]/gu, '').replace(/ /g, '-');
const anchorsOf = (file: string): Set<string> =>
  new Set([...(text.get(file) ?? readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

/** A link target that must resolve: a path in the repository and an optional anchor. */
function broken(from: string, target: string, base: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? from : normalize(join(base, path));
  if (!existsSync(file)) return `${from}: ${target} — no such file`;
  if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) return `${from}: ${target} — no heading #${anchor}`;
  return undefined;
}

describe('references', () => {
  it('no file cites a design document from outside the repository', () => {
    // A section sign with a number (a published standard's, "RFC 7518 §3.2", aside), or an upper-case Markdown file
    // name the repository does not hold, is a citation of a document a reader of this repository does not have.
    const cites = (t: string): boolean =>
      [...t.matchAll(/(?<!RFC \d+ )§\s?\d|\b([A-Z][A-Z0-9_-]*\.md)\b/g)].some((m) => !m[1] || !tracked.some((f) => f === m[1] || f.endsWith(`/${m[1]}`)));
    expect([...text].filter(([, t]) => cites(t)).map(([f]) => f)).toEqual([]);
  });

  it('every Markdown link to a repository file resolves, anchor included', () => {
    const problems: string[] = [];
    for (const [f, t] of text) {
      if (!f.endsWith('.md')) continue;
      for (const m of t.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const p = broken(f, target, dirname(f));
        if (p) problems.push(p);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every docs/<page>.md mentioned in code exists, with the heading its anchor names', () => {
    const problems: string[] = [];
    for (const [f, t] of text) {
      if (f.endsWith('.md')) continue;
      for (const m of t.matchAll(/\bdocs\/([a-z0-9-]+\.(?:md|yaml))(#[a-z0-9-]+)?/g)) {
        const p = broken(f, `docs/${m[1]}${m[2] ?? ''}`, '.');
        if (p) problems.push(p);
      }
    }
    expect(problems).toEqual([]);
  });
});
