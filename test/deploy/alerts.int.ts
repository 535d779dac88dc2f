import { describe, expect, it } from '@jest/globals';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadManifests, named, ofKind } from './support/manifests.js';
import { stripComments } from './support/kube-calls.js';
import { read, ROOT } from './support/source-graph.js';

/** registeredMetrics — every `nodes_manager_*` name the services and libs register (re-read from source each run). */
function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const n of readdirSync(join(ROOT, dir))) {
      const p = join(dir, n);
      if (statSync(join(ROOT, p)).isDirectory()) {
        if (n !== 'testing' && n !== 'node_modules') walk(p);
      } else if (/\.ts$/.test(n) && !/\.(spec|int|e2e)\.ts$/.test(n)) {
        const text = stripComments(read(p));
        for (const m of text.matchAll(/\.(counter|gauge|collectedGauge|histogram)\(\s*'(nodes_manager_\w+)'/g)) {
          names.add(m[2]!);
          if (m[1] === 'histogram') for (const s of ['_count', '_sum', '_bucket']) names.add(m[2]! + s);
        }
      }
    }
  };
  walk('services');
  walk('libs');
  return names;
}

const manifests = loadManifests();
const rules = ofKind(manifests, 'PrometheusRule').flatMap((m) => m.doc.spec.groups.flatMap((g: any) => g.rules as { alert: string; expr: string; for?: string }[]));
const byAlert = (name: string) => rules.find((r) => r.alert === name)!;

describe('alert rules', () => {
  it('cover sync staleness, the outbox backlog and its oldest event, and failing uncordons', () => {
    for (const a of ['NodesManagerSyncStale', 'NodesManagerOutboxBacklogGrowing', 'NodesManagerOutboxEventStuck', 'NodesManagerUncordonFailing']) expect(byAlert(a)).toBeDefined();
  });

  it('use only metric names the code registers', () => {
    const known = registeredMetrics();
    expect(known.size).toBeGreaterThan(3);
    const used = new Set(rules.flatMap((r) => [...r.expr.matchAll(/\bnodes_manager_\w+/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThan(3);
    expect([...used].filter((n) => !known.has(n))).toEqual([]);
  });

  it('call a sync stale after 3 × SCAN_INTERVAL_SECONDS of the ConfigMap', () => {
    const scan = Number(named(manifests, 'ConfigMap', 'nodes-manager-config')!.doc.data.SCAN_INTERVAL_SECONDS);
    const expr = byAlert('NodesManagerSyncStale').expr;
    expect(expr).toMatch(/nodes_manager_node_sync_duration_seconds_count/);
    const window = /\[(\d+)([smh])\]/.exec(expr)!;
    const seconds = Number(window[1]) * { s: 1, m: 60, h: 3600 }[window[2] as 's' | 'm' | 'h'];
    expect(seconds).toBe(3 * scan);
  });

  it('match the label values the code emits', () => {
    const uncordon = read('services/uncordon/src/auto-uncordon/uncordon.service.ts');
    const actResult = /type ActResult\s*=([^;]*);/.exec(uncordon)?.[1] ?? '';
    for (const r of rules) {
      for (const m of r.expr.matchAll(/nodes_manager_uncordons_total\{[^}]*result="([\w-]+)"/g)) expect(actResult).toContain(`'${m[1]}'`);
      for (const m of r.expr.matchAll(/nodes_manager_drains_total\{[^}]*status="([\w-]+)"/g)) expect(read('libs/contracts/src/uncordon.ts')).toContain(`'${m[1]}'`);
    }
  });
});
