// Every page of docs/ is listed in the docs index (docs/README.md) with one line, and every page can be reached by
// following links from the README: a page nothing links to is a page nobody reads. Every library of libs/ is named in
// the README and in docs/architecture.md's layout.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const INDEX = 'docs/README.md';
/** A page the tests plant (its path built, so that the references check does not take it for a link). */
const PLANTED = ['docs', 'planted.md'].join('/');
const pages = (): string[] => readdirSync('docs').filter((f) => /\.(md|yaml)$/.test(f)).map((f) => `docs/${f}`);

/** linksOf — the repository paths the Markdown `text` at `from` links to (anchors and external links dropped). */
function linksOf(from: string, text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/i.test(href))
    .map((href) => normalize(join(dirname(from), href)));
}

/** unreachable — the pages of `docs` (path → text) that no chain of links from `start` reaches. */
function unreachable(start: string, docs: ReadonlyMap<string, string>): string[] {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length) {
    const page = queue.shift()!;
    for (const to of linksOf(page, docs.get(page) ?? '')) if (docs.has(to) && !seen.has(to)) (seen.add(to), queue.push(to));
  }
  return [...docs.keys()].filter((p) => !seen.has(p));
}

/** unlisted — the pages the index does not link to. */
const unlisted = (index: string, all: readonly string[]): string[] => {
  const listed = new Set(linksOf(INDEX, index));
  return all.filter((p) => p !== INDEX && !listed.has(p));
};

const read = (): Map<string, string> => new Map([['README.md', readFileSync('README.md', 'utf8')], ...pages().map((p) => [p, readFileSync(p, 'utf8')] as const)]);

describe('the docs index', () => {
  it('lists every page of docs/', () => {
    expect(unlisted(readFileSync(INDEX, 'utf8'), pages())).toEqual([]);
  });

  it('and every page is reachable by links from the README', () => {
    expect(unreachable('README.md', read())).toEqual([]);
  });

  it('fails on a planted page the index does not list, and nothing links to', () => {
    const docs = read();
    docs.set(PLANTED, '# Planted\n');
    expect(unlisted(docs.get(INDEX)!, [...pages(), PLANTED])).toEqual([PLANTED]);
    expect(unreachable('README.md', docs)).toEqual([PLANTED]);
  });
});

describe('the libraries', () => {
  const libs = readdirSync('libs');
  it.each(['README.md', 'docs/architecture.md'])('are each named in %s', (page) => {
    const text = readFileSync(page, 'utf8');
    expect(libs.filter((l) => !text.includes(`libs/${l}`))).toEqual([]);
  });
});
