// One description per table (docs/design.md#data): the TypeORM entity declares a table's columns, the start-up
// self-check holds the migrations to exactly those columns (test/integration/migrations.int.ts), and this test holds
// the SQL the repositories write by hand to them — every column an INSERT, a SELECT list, an UPDATE … SET or a row
// mapper (`r.some_column`) names must be a column the entity of that table declares.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataArgsStorage } from 'typeorm';
import { entities as nodeSync } from '../../services/node-sync/src/adapters/outbound/node-sync.entities.js';
import { entities as uncordon } from '../../services/uncordon/src/adapters/outbound/uncordon.entities.js';
import { entities as scheduler } from '../../services/scheduler-scoring/src/adapters/outbound/scheduler-scoring.entities.js';
import { entities as karpenter } from '../../services/karpenter-gateway/src/adapters/outbound/karpenter-gateway.entities.js';
import { entities as spot } from '../../services/spot-advisor/src/adapters/outbound/spot-advisor.entities.js';

const SERVICES: Record<string, readonly (new () => unknown)[]> = {
  'node-sync': nodeSync,
  uncordon,
  'scheduler-scoring': scheduler,
  'karpenter-gateway': karpenter,
  'spot-advisor': spot,
};

/** The columns each entity declares, by table name. */
function declaredColumns(targets: readonly (new () => unknown)[]): Map<string, Set<string>> {
  const storage = getMetadataArgsStorage();
  const out = new Map<string, Set<string>>();
  for (const target of targets) {
    const table = storage.tables.find((t) => t.target === target)!;
    const cols = storage.columns.filter((c) => c.target === target).map((c) => c.options.name ?? c.propertyName);
    out.set(table.name!, new Set(cols));
  }
  return out;
}

const identifiers = (list: string): string[] =>
  list.split(',').map((s) => s.trim()).filter((s) => /^[a-z_][a-z0-9_]*$/.test(s));

/** Every column name the SQL of one repository file uses, with the table it is used on. */
function usedColumns(source: string): { table: string; column: string; where: string }[] {
  const constants = new Map([...source.matchAll(/const (\w+) = '(?:nodes\.)?(\w+)'/g)].map((m) => [m[1]!, m[2]!]));
  const sql = source.replace(/\$\{(\w+)\}/g, (whole, name: string) => (constants.has(name) ? `nodes.${constants.get(name)}` : whole));
  const out: { table: string; column: string; where: string }[] = [];
  for (const m of sql.matchAll(/INSERT INTO nodes\.(\w+)(?: AS \w+)?\s*\(([^)]*)\)/g)) {
    for (const column of identifiers(m[2]!)) out.push({ table: m[1]!, column, where: 'INSERT' });
  }
  for (const m of sql.matchAll(/SELECT\s+([a-z_][a-z0-9_,\s]*?)\s+FROM nodes\.(\w+)/g)) {
    for (const column of identifiers(m[1]!)) out.push({ table: m[2]!, column, where: 'SELECT' });
  }
  for (const m of sql.matchAll(/UPDATE nodes\.(\w+)(?: AS \w+)?\s+SET\s+([\s\S]*?)(?:\bWHERE\b|\bFROM\b|\bRETURNING\b|`)/g)) {
    for (const a of m[2]!.matchAll(/(?:^|,)\s*([a-z_][a-z0-9_]*)\s*=/g)) out.push({ table: m[1]!, column: a[1]!, where: 'UPDATE' });
  }
  return out;
}

describe('the SQL of each repository', () => {
  it.each(Object.keys(SERVICES))('%s: names only columns its entities declare', (service) => {
    const tables = declaredColumns(SERVICES[service]!);
    const allColumns = new Set([...tables.values()].flatMap((s) => [...s]));
    // The outbound adapters, and the repositories of a behaviour's folder (services/<service>/src/<behaviour>/).
    const src = join('services', service, 'src');
    const outbound = join(src, 'adapters', 'outbound');
    const sources = [
      ...readdirSync(outbound).map((f) => join(outbound, f)),
      ...readdirSync(src, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'adapters' && d.name !== 'domain')
        .flatMap((d) => readdirSync(join(src, d.name)).filter((f) => f.endsWith('.repository.ts')).map((f) => join(src, d.name, f))),
    ].filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    const problems: string[] = [];
    let checked = 0;
    for (const file of sources) {
      const source = readFileSync(file, 'utf8');
      for (const u of usedColumns(source)) {
        if (!tables.has(u.table)) continue; // the platform's outbox/inbox, or a table it does not own
        checked += 1;
        if (!tables.get(u.table)!.has(u.column)) problems.push(`${file}: ${u.where} names ${u.table}.${u.column}, which the entity does not declare`);
      }
      // Row mappers read snake_case fields straight off result rows.
      for (const m of source.matchAll(/\b(?:r|row)\.([a-z]+_[a-z0-9_]+)\b/g)) {
        checked += 1;
        if (!allColumns.has(m[1]!)) problems.push(`${file}: a row mapper reads ${m[1]}, which no entity of ${service} declares`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });

  it('catches a column an INSERT names that the entity does not declare', () => {
    const used = usedColumns("const T = 'nodes.scaling_events';\nawait q(`INSERT INTO ${T} (id, node_name, requested_by) VALUES ($1, $2, $3)`);");
    const declared = declaredColumns(uncordon).get('scaling_events')!;
    expect(used.filter((u) => !declared.has(u.column)).map((u) => u.column)).toEqual(['requested_by']);
  });
});
