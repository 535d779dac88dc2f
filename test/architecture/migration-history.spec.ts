// Migrations are history: the SQL a migration ran when it was applied never changes, or databases migrated before and
// after the change would differ with nothing to tell them apart. Each migration's SQL (the statements its `up` runs,
// in order) has a fingerprint in migrations/fingerprints.json; a changed statement, a new migration without its
// fingerprint and a fingerprint whose migration is gone all fail here. A change to a schema is a new migration.
// That migrations call no library code (whose output could change under them) is the `migrations-are-history`
// layering rule (.dependency-cruiser.cjs).
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const FINGERPRINTS = 'migrations/fingerprints.json';
type Migration = new () => MigrationInterface;
type Fingerprints = Record<string, Record<string, string>>;

/** sqlOf — the statements (with their parameters) a migration's `up` runs, recorded without a database. */
async function sqlOf(M: Migration): Promise<unknown[]> {
  const statements: unknown[] = [];
  const recorder = { query: async (sql: string, params?: unknown[]) => (statements.push(params?.length ? [sql, params] : sql), []) };
  await new M().up(recorder as unknown as QueryRunner);
  return statements;
}

const fingerprint = async (M: Migration): Promise<string> => `sha256:${createHash('sha256').update(JSON.stringify(await sqlOf(M))).digest('hex')}`;
const nameOf = (M: Migration): string => new M().name ?? M.name;

/** historyProblems — how the migrations of each service differ from the recorded fingerprints. */
async function historyProblems(recorded: Fingerprints, byService: Record<string, readonly Migration[]>): Promise<string[]> {
  const problems: string[] = [];
  for (const [service, list] of Object.entries(byService)) {
    const known = recorded[service] ?? {};
    const names = new Set<string>();
    for (const M of list) {
      const name = nameOf(M);
      names.add(name);
      const now = await fingerprint(M);
      if (!(name in known)) problems.push(`${service}: ${name} is new: record its fingerprint in ${FINGERPRINTS}: "${name}": "${now}"`);
      else if (known[name] !== now) problems.push(`${service}: ${name} runs other SQL than when it was applied (${known[name]} → ${now}): leave it as it was and write a new migration`);
    }
    for (const name of Object.keys(known)) if (!names.has(name)) problems.push(`${service}: ${name} has a fingerprint but is no longer among the migrations: an applied migration is never removed`);
  }
  return problems;
}

async function loadMigrations(): Promise<Record<string, readonly Migration[]>> {
  const services = readdirSync('migrations', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  const out: Record<string, readonly Migration[]> = {};
  for (const s of services) out[s] = ((await import(`../../migrations/${s}/index.js`)) as { migrations: Migration[] }).migrations;
  return out;
}

const recorded = (): Fingerprints => JSON.parse(readFileSync(FINGERPRINTS, 'utf8')) as Fingerprints;

describe('migrations', () => {
  it('run the SQL they ran when they were applied', async () => {
    expect(await historyProblems(recorded(), await loadMigrations())).toEqual([]);
  });

  describe('a planted change fails', () => {
    const planted = async (edit: (real: Record<string, readonly Migration[]>) => Record<string, readonly Migration[]>) => historyProblems(recorded(), edit(await loadMigrations()));

    it('an edited statement of an applied migration', async () => {
      const problems = await planted((real) => {
        const [first, ...rest] = real['node-sync']!;
        class Edited extends first! {
          override async up(q: QueryRunner): Promise<void> {
            const edited = { query: (sql: string, params?: unknown[]) => q.query(sql.replace('name text NOT NULL UNIQUE', 'name varchar(253) NOT NULL UNIQUE'), params) };
            await super.up(edited as unknown as QueryRunner);
          }
        }
        return { ...real, 'node-sync': [Edited, ...rest] };
      });
      expect(problems).toEqual([expect.stringMatching(/^node-sync: NodeSyncInitial1764500000000 runs other SQL than when it was applied/)]);
    });

    it('a new migration without its fingerprint', async () => {
      class Added implements MigrationInterface {
        name = 'NodeSyncAdded1799999999999';
        async up(q: QueryRunner): Promise<void> {
          await q.query('ALTER TABLE nodes.nodes ADD COLUMN note text');
        }
        async down(q: QueryRunner): Promise<void> {
          await q.query('ALTER TABLE nodes.nodes DROP COLUMN note');
        }
      }
      const problems = await planted((real) => ({ ...real, 'node-sync': [...real['node-sync']!, Added] }));
      expect(problems).toEqual([expect.stringMatching(/^node-sync: NodeSyncAdded1799999999999 is new: record its fingerprint .*"sha256:[0-9a-f]{64}"$/)]);
    });

    it('an applied migration taken out', async () => {
      const problems = await planted((real) => ({ ...real, 'spot-advisor': real['spot-advisor']!.slice(1) }));
      expect(problems).toEqual([expect.stringMatching(/^spot-advisor: SpotAdvisorInitial1764500000000 has a fingerprint but is no longer among the migrations/)]);
    });
  });
});
