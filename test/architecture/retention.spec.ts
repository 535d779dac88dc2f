// Every table that grows has a retention rule (docs/retention.md): each table a service's migrations leave with a time
// column (timestamptz) is either kept for a configured time by the service's retention controller, or listed
// as bounded with the reason (one row per key). A new history table without a rule fails here. The table of
// docs/retention.md is generated from the same rules: a page that differs fails; `UPDATE_DOCS=1` writes it.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { ServiceName } from '@nodes-manager/contracts';
import type { BoundedTable, RetentionSpec } from '@nodes-manager/platform';
import { migrations as nodeSync } from '../../migrations/node-sync/index.js';
import { migrations as uncordon } from '../../migrations/uncordon/index.js';
import { migrations as scheduler } from '../../migrations/scheduler-scoring/index.js';
import { migrations as karpenter } from '../../migrations/karpenter-gateway/index.js';
import { migrations as spot } from '../../migrations/spot-advisor/index.js';
import { migrations as apiGateway } from '../../migrations/api-gateway/index.js';
import { nodeSyncRetention } from '../../services/node-sync/src/retention.js';
import { uncordonRetention } from '../../services/uncordon/src/retention.js';
import { schedulerScoringRetention } from '../../services/scheduler-scoring/src/retention.js';
import { karpenterGatewayRetention } from '../../services/karpenter-gateway/src/retention.js';
import { spotAdvisorRetention } from '../../services/spot-advisor/src/retention.js';

type Migration = new () => MigrationInterface;
const SPECS: readonly RetentionSpec[] = [nodeSyncRetention, uncordonRetention, schedulerScoringRetention, karpenterGatewayRetention, spotAdvisorRetention];
const SERVICES: readonly [ServiceName, readonly Migration[]][] = [
  ['node-sync', nodeSync],
  ['uncordon', uncordon],
  ['scheduler-scoring', scheduler],
  ['karpenter-gateway', karpenter],
  ['spot-advisor', spot],
  ['api-gateway', apiGateway],
];

/**
 * Tables of the platform's, in every service: the outbox is pruned by the outbox relay (sent events, after 24 h);
 * the inboxes were dropped. api-gateway's rate-limit windows are one row per actor and budget; the leaders' terms one
 * row per lock.
 */
const PLATFORM: readonly BoundedTable[] = [
  { table: 'outbox_<service>', why: 'pruned by the outbox relay' },
  { table: 'rate_limit_windows', why: 'one row per actor and budget, overwritten each window' },
  { table: 'leader_terms', why: 'one row per leader lock' },
];
const platformTable = (table: string): boolean => /^outbox_/.test(table) || PLATFORM.some((p) => p.table === table);

/** timeColumns — the tables a service's migrations leave, each with its timestamptz columns (the SQL of each `up`, recorded). */
async function timeColumns(list: readonly Migration[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const recorder = {
    query: async (sql: string) => {
      for (const m of sql.matchAll(/CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?nodes\.(\w+) \(([\s\S]*)\)/g)) {
        const cols = [...m[2]!.matchAll(/(?:^|,|\()\s*([a-z_][a-z0-9_]*) timestamptz/gm)].map((c) => c[1]!);
        out.set(m[1]!, new Set(cols));
      }
      for (const m of sql.matchAll(/ALTER TABLE nodes\.(\w+)([\s\S]*)/g)) {
        for (const c of m[2]!.matchAll(/ADD COLUMN ([a-z_][a-z0-9_]*) timestamptz/g)) out.get(m[1]!)?.add(c[1]!);
      }
      for (const m of sql.matchAll(/DROP TABLE (?:IF EXISTS )?nodes\.(\w+)/g)) out.delete(m[1]!);
      return [];
    },
  };
  for (const M of list) await new M().up(recorder as unknown as QueryRunner);
  return out;
}

/** retentionProblems — a service's tables with a time column and neither a rule nor a reason to be bounded, and rules that do not fit their table. */
async function retentionProblems(service: ServiceName, spec: RetentionSpec | undefined, list: readonly Migration[]): Promise<string[]> {
  const tables = await timeColumns(list);
  const rules = spec?.rules ?? [];
  const ruled = new Set(rules.map((r) => r.table));
  const bounded = new Set(spec?.bounded.map((b) => b.table) ?? []);
  const problems: string[] = [];
  for (const [table, cols] of tables) {
    if (cols.size === 0 || platformTable(table)) continue;
    if (!ruled.has(table) && !bounded.has(table)) problems.push(`${service}: nodes.${table} has a time column (${[...cols].join(', ')}) but no retention rule: add one to services/${service}/src/retention.ts, or list it as bounded with the reason`);
    if (ruled.has(table) && bounded.has(table)) problems.push(`${service}: nodes.${table} has a rule and is listed as bounded`);
  }
  for (const r of rules) {
    if (!tables.has(r.table)) problems.push(`${service}: the rule of nodes.${r.table} names a table the service's migrations do not leave`);
    else if (!tables.get(r.table)!.has(r.column)) problems.push(`${service}: the rule of nodes.${r.table} measures ${r.column}, which is not one of its time columns`);
  }
  for (const b of spec?.bounded ?? []) if (!tables.has(b.table)) problems.push(`${service}: nodes.${b.table} is listed as bounded but the service's migrations do not leave it`);
  return problems;
}

const specOf = (service: ServiceName): RetentionSpec | undefined => SPECS.find((s) => s.service === service);

const PAGE = 'docs/retention.md';
const HEADER = '| table | service | holds | kept for (variable, default) | measured on | never deleted | must outlive |';

const unit = (variable: string): string => (variable.endsWith('_DAYS') ? 'days' : 'h');

/** generatedTable — the retention table of the code: every rule, every bounded table, and the outbox. */
function generatedTable(): string[] {
  const rows: string[] = [HEADER, '|---|---|---|---|---|---|---|'];
  for (const spec of SPECS) {
    for (const r of spec.rules) {
      rows.push(`| \`${r.table}\` | ${spec.service} | ${r.holds} | \`${r.variable}\`, ${r.dflt} ${unit(r.variable)} | \`${r.column}\` | ${r.keep?.why ?? '—'} | ${r.outlives?.map((w) => `\`${w}\``).join(', ') ?? '—'} |`);
    }
  }
  rows.push('| `outbox_<service>` | every service | events to publish | 24 h after they are sent (the outbox relay) | `sent_at` | an event not sent yet | — |');
  for (const spec of SPECS) {
    for (const b of spec.bounded) rows.push(`| \`${b.table}\` | ${spec.service} | bounded: ${b.why} | — | — | — | — |`);
  }
  rows.push(`| \`rate_limit_windows\` | api-gateway | bounded: ${PLATFORM[1]!.why} | — | — | — | — |`);
  rows.push(`| \`leader_terms\` | every service that elects a leader | bounded: ${PLATFORM[2]!.why} | — | — | — | — |`);
  return rows;
}

function tableIn(page: string): { start: number; end: number } {
  const lines = page.split('\n');
  const start = lines.indexOf(HEADER);
  if (start < 0) throw new Error(`${PAGE} has no table headed ${HEADER}`);
  let end = start + 2;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  return { start, end };
}

/** A migration that adds a history table and no rule for it. */
class PlantedHistory1766699999999 implements MigrationInterface {
  name = 'PlantedHistory1766699999999';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.planted_history (
      id uuid PRIMARY KEY,
      created_at timestamptz NOT NULL
    )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.planted_history`);
  }
}

describe('retention', () => {
  it.each(SERVICES)('%s: every table with a time column has a rule or says why it is bounded', async (service, list) => {
    expect(await retentionProblems(service, specOf(service), list)).toEqual([]);
  });

  it('fails on a planted table with a time column and no rule', async () => {
    expect(await retentionProblems('uncordon', uncordonRetention, [...uncordon, PlantedHistory1766699999999])).toEqual([
      expect.stringContaining('uncordon: nodes.planted_history has a time column (created_at) but no retention rule'),
    ]);
  });

  it('fails on a rule that measures a column the table does not have', async () => {
    const spec = { ...uncordonRetention, rules: [{ ...uncordonRetention.rules[0]!, column: 'deleted_at' }] };
    expect(await retentionProblems('uncordon', spec, uncordon)).toContainEqual(expect.stringContaining('measures deleted_at'));
  });

  it(`${PAGE} has the code's retention table (regenerate with UPDATE_DOCS=1)`, () => {
    const page = readFileSync(PAGE, 'utf8');
    const t = tableIn(page);
    const generated = generatedTable();
    if (process.env['UPDATE_DOCS']) {
      const lines = page.split('\n');
      lines.splice(t.start, t.end - t.start, ...generated);
      writeFileSync(PAGE, lines.join('\n'));
      return;
    }
    expect(page.split('\n').slice(t.start, t.end)).toEqual(generated);
  });
});
