// The command graph (docs/architecture.md#the-command-graph): which service sends which command to which, read from
// the sources and pinned edge by edge. A service sends a command where it calls `.send(Commands.<name>, …)` (the
// owner is the pattern's: libs/contracts `commandOwner`), and it asks uncordon for the pause when its module wires
// `pauseGateProviders`. The gateway forwards every command of the catalogue and is left out. A new edge, a new
// command on an edge, or an edge that is gone fails here until ALLOWED says so; the one cycle (uncordon ↔ spot-advisor)
// is the one the docs argue for. The README's diagram draws the same edges (`a -- "x, y" --> b` between services).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Commands, commandOwner } from '@nodes-manager/contracts';

/** Every edge `caller → owner`, with the commands it carries. */
const ALLOWED: Record<string, readonly string[]> = {
  'karpenter-gateway → node-sync': ['nodehours.list', 'nodes.list'],
  'karpenter-gateway → scheduler-scoring': ['optimize.plan', 'optimize.replace'],
  'karpenter-gateway → spot-advisor': ['spot.prices'],
  'karpenter-gateway → uncordon': ['cordons.list', 'pause.get', 'rebalances.list'],
  'scheduler-scoring → spot-advisor': ['instancetypes.list', 'spot.prices'],
  'scheduler-scoring → uncordon': ['drain.get', 'node.drain', 'pause.get'],
  'spot-advisor → uncordon': ['rebalances.summary'],
  'uncordon → node-sync': ['nodehours.list'],
  'uncordon → spot-advisor': ['instance.fence', 'instances.describe'],
};

const SEND = /\.send\(\s*Commands\.(\w+)/g;
const PAUSE_GATE = /pauseGateProviders\(\s*'([a-z-]+)'\s*\)/g;

/** commandGraph — the edges the sources (path → text) send along, each with its commands, sorted. */
export function commandGraph(sources: ReadonlyMap<string, string>): Record<string, string[]> {
  const edges = new Map<string, Set<string>>();
  const add = (from: string, pattern: string) => {
    const to = commandOwner(pattern);
    if (to === from) return;
    const key = `${from} → ${to}`;
    edges.set(key, (edges.get(key) ?? new Set()).add(pattern));
  };
  for (const [file, text] of sources) {
    const from = /^services\/([^/]+)\/src\//.exec(file)?.[1];
    if (!from || from === 'api-gateway') continue;
    for (const m of text.matchAll(SEND)) {
      const pattern = (Commands as Record<string, string>)[m[1]!];
      if (!pattern) throw new Error(`${file}: Commands.${m[1]} is not a command`);
      add(from, pattern);
    }
    for (const m of text.matchAll(PAUSE_GATE)) add(m[1]!, Commands.pauseGet);
  }
  return Object.fromEntries([...edges].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));
}

/** cycles — the pairs of services that send to each other. */
export function cycles(graph: Record<string, readonly string[]>): string[] {
  return Object.keys(graph)
    .map((e) => e.split(' → ') as [string, string])
    .filter(([a, b]) => a < b && `${b} → ${a}` in graph)
    .map(([a, b]) => `${a} ↔ ${b}`);
}

/** The README diagram's node ids. */
const DIAGRAM_IDS: Record<string, string> = { ns: 'node-sync', un: 'uncordon', sc: 'scheduler-scoring', kg: 'karpenter-gateway', sa: 'spot-advisor' };

/** diagramEdges — the labelled edges between services (the gateway's aside) of the README's mermaid block. */
export function diagramEdges(readme: string): Record<string, string[]> {
  const block = /```mermaid\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const edges: [string, string[]][] = [];
  for (const m of block.matchAll(/^\s*(\w+) -- "?([^"\n]*?)"? --> (\w+)/gm)) {
    const [from, to] = [DIAGRAM_IDS[m[1]!], DIAGRAM_IDS[m[3]!]];
    if (from && to) edges.push([`${from} → ${to}`, m[2]!.split(/,\s*/).sort()]);
  }
  return Object.fromEntries(edges.sort(([a], [b]) => a.localeCompare(b)));
}

const sources = (): Map<string, string> =>
  new Map(
    execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'services'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => /^services\/[^/]+\/src\/.+\.ts$/.test(f) && !/\.spec\.ts$/.test(f) && existsSync(f))
      .map((f) => [f, readFileSync(f, 'utf8')]),
  );

describe('the command graph', () => {
  it('is exactly the pinned edges, each with exactly its commands', () => {
    expect(commandGraph(sources())).toEqual(ALLOWED);
  });

  it('has one cycle, uncordon ↔ spot-advisor, argued for in docs/architecture.md', () => {
    expect(cycles(ALLOWED)).toEqual(['spot-advisor ↔ uncordon']);
    expect(readFileSync('docs/architecture.md', 'utf8')).toMatch(/## The command graph[\s\S]*uncordon ↔ spot-advisor/);
  });

  it("is the README diagram's, edge by edge and command by command", () => {
    expect(diagramEdges(readFileSync('README.md', 'utf8'))).toEqual(ALLOWED);
  });

  it("the README check fails on a planted drift: an edge dropped, or a command missing from a label", () => {
    const readme = readFileSync('README.md', 'utf8');
    const dropped = readme.replace(/^\s*sa -- [^\n]*\n/m, '');
    const relabelled = readme.replace('"drain.get, node.drain, ', '"drain.get, ');
    expect([dropped, relabelled]).not.toContain(readme);
    expect(diagramEdges(dropped)).not.toEqual(ALLOWED);
    expect(diagramEdges(relabelled)).not.toEqual(ALLOWED);
  });

  it('fails on a planted edge, a planted command on a pinned edge, and a pinned edge gone', () => {
    const planted = new Map(sources());
    planted.set('services/node-sync/src/planted.ts', 'await this.bus.send(Commands.optimizePlan, {}, meta);');
    planted.set('services/spot-advisor/src/planted.ts', 'await this.bus.send(Commands.cordonsList, {}, meta);');
    planted.delete('services/uncordon/src/rebalance-ledger/node-hours.adapter.ts');
    const graph = commandGraph(planted);
    expect(graph).not.toEqual(ALLOWED);
    expect(graph['node-sync → scheduler-scoring']).toEqual(['optimize.plan']);
    expect(graph['spot-advisor → uncordon']).toEqual(['cordons.list', 'rebalances.summary']);
    expect(graph['uncordon → node-sync']).toBeUndefined();
    expect(cycles({ ...ALLOWED, 'scheduler-scoring → karpenter-gateway': ['nodepools.list'] })).toEqual(['karpenter-gateway ↔ scheduler-scoring', 'spot-advisor ↔ uncordon']);
  });
});
