// The layering rules (.dependency-cruiser.cjs, docs/design.md#layering) hold over the repository, and each one
// fails on the violation it is there for: a small tree with one violating import per rule, and imports the rules
// allow beside them, is checked by the same script `npm test` runs over the real tree.
import { describe, expect, it, beforeAll, afterAll } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const repo = resolve('.');

function checkLayers(base?: string): { status: number; violations: string[]; out: string } {
  const r = spawnSync(process.execPath, ['scripts/check-layers.mjs', ...(base ? ['--base', base] : [])], { cwd: repo, encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`;
  const violations = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('error '))
    .map((l) => /^error ([a-z-]+): (\S+) →/.exec(l)!)
    .map((m) => `${m[1]} ${m[2]}`);
  return { status: r.status ?? 1, violations, out };
}

/** One file per import under test; `ok` files must not be reported. */
const files: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  'libs/contracts/src/node.ts': "export interface NodeView { readonly name: string }\n",
  'libs/platform/src/clock.ts': "export const now = (): number => 0;\n",
  'migrations/alpha/index.ts': 'export const alphaMigrations = [];\n',
  'migrations/beta/index.ts': 'export const betaMigrations = [];\n',
  'services/alpha/src/adapters/outbound/alpha.repository.ts': 'export interface AlphaRow { readonly id: string }\nexport const table = "alpha";\n',
  'services/beta/src/beta.service.ts': "export const beta = 1;\n",
  'services/beta/test/beta.builder.ts': 'export const aBeta = (): number => 1;\n',
  // Allowed: the Kubernetes object types, contracts, hashing, its own domain, and in a spec Jest and test builders.
  'services/alpha/src/domain/decide-ok.ts': [
    "import type { V1Node } from '@kubernetes/client-node';",
    "import { createHash } from 'node:crypto';",
    "import type { NodeView } from '../../../../libs/contracts/src/node.js';",
    "import { pure } from './pure.js';",
    'export const decide = (n: V1Node, v: NodeView): string => createHash("sha256").update(`${n.metadata?.name}${v.name}${pure}`).digest("hex");',
  ].join('\n'),
  'services/alpha/src/domain/pure.ts': 'export const pure = 1;\n',
  'services/alpha/src/domain/decide-ok.spec.ts': "import { it } from '@jest/globals';\nimport { aBeta } from '../../test/alpha.builder.js';\nit('is', () => void aBeta);\n",
  'services/alpha/test/alpha.builder.ts': 'export const aBeta = 1;\n',
  'services/alpha/src/alpha.module.ts': "import { alphaMigrations } from '../../../migrations/alpha/index.js';\nexport const m = alphaMigrations;\n",
  'migrations/alpha/1000000000000-ok.ts': "import type { MigrationInterface, QueryRunner } from 'typeorm';\nexport type M = (q: QueryRunner) => MigrationInterface;\n",
  // A behaviour's own folder (services/<service>/src/<behaviour>/): its domain may use another domain of the service,
  // and its repository may touch TypeORM.
  'services/alpha/src/drain/domain/plan-ok.ts': "import { pure } from '../../domain/pure.js';\nexport const plan = pure + 1;\n",
  'services/alpha/src/drain/drain.repository.ts': "import type { DataSource } from 'typeorm';\nexport type D = DataSource;\n",
  'libs/platform/src/type-cycle-a.ts': "import type { B } from './type-cycle-b.js';\nexport interface A { b?: B }\nexport const a = 1;\n",
  'libs/platform/src/type-cycle-b.ts': "import { a } from './type-cycle-a.js';\nexport interface B { a: number }\nexport const b = a;\n",

  // Violations, one per file.
  'services/alpha/src/domain/decide-adapter.ts': "import { table } from '../adapters/outbound/alpha.repository.js';\nexport const t = table;\n",
  'services/alpha/src/domain/decide-typeorm.ts': "import { DataSource } from 'typeorm';\nexport const d = DataSource;\n",
  'services/alpha/src/domain/decide-kube-client.ts': "import { CoreV1Api } from '@kubernetes/client-node';\nexport const c = CoreV1Api;\n",
  'services/alpha/src/domain/decide-nest.ts': "import { Injectable } from '@nestjs/common';\nexport const i = Injectable;\n",
  'services/alpha/src/domain/decide-aws.ts': "import { EC2Client } from '@aws-sdk/client-ec2';\nexport const e = EC2Client;\n",
  'services/alpha/src/domain/decide-platform.ts': "import { now } from '../../../../libs/platform/src/clock.js';\nexport const n = now;\n",
  'services/alpha/src/domain/decide-adapter-type.ts': "import type { AlphaRow } from '../adapters/outbound/alpha.repository.js';\nexport const id = (r: AlphaRow): string => r.id;\n",
  'services/alpha/src/domain/decide-fs.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
  'services/alpha/src/drain/domain/plan-typeorm.ts': "import { DataSource } from 'typeorm';\nexport const d = DataSource;\n",
  'services/alpha/src/drain/drain.service.ts': "import { DataSource } from 'typeorm';\nexport const d = DataSource;\n",
  'services/beta/src/beta-tx.service.ts': "import { DataSource } from 'typeorm';\nexport const d = DataSource;\n",
  'services/beta/src/adapters/outbound/beta.repository.ts': "import type { DataSource } from 'typeorm';\nexport type D = DataSource;\n",
  'services/beta/src/beta.module.ts': "import type { DataSource } from 'typeorm';\nexport type D = DataSource;\n",
  'services/alpha/src/alpha.service.ts': "import { beta } from '../../beta/src/beta.service.js';\nexport const a = beta;\n",
  'services/alpha/src/alpha.migrations.ts': "import { betaMigrations } from '../../../migrations/beta/index.js';\nexport const m = betaMigrations;\n",
  'libs/platform/src/uses-service.ts': "import { beta } from '../../../services/beta/src/beta.service.js';\nexport const b = beta;\n",
  'libs/contracts/src/uses-nest.ts': "import { Injectable } from '@nestjs/common';\nexport const i = Injectable;\n",
  'libs/contracts/src/uses-platform.ts': "import { now } from '../../platform/src/clock.js';\nexport const n = now;\n",
  'libs/scoring/src/uses-pg.ts': "import pg from 'pg';\nexport const p = pg;\n",
  'libs/kube/src/uses-client.ts': "import { KubeConfig } from '@kubernetes/client-node';\nexport const k = KubeConfig;\n",
  'services/beta/src/uses-builder.ts': "import { aBeta } from '../test/beta.builder.js';\nexport const b = aBeta;\n",
  'libs/platform/src/cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = (): number => b();\n",
  'libs/platform/src/cycle-b.ts': "import { a } from './cycle-a.js';\nexport const b = (): number => a();\n",
  'migrations/alpha/2000000000000-uses-platform.ts': "import { now } from '../../libs/platform/src/clock.js';\nexport const n = now;\n",
  'migrations/alpha/3000000000000-uses-typeorm.ts': "import { Table } from 'typeorm';\nexport const t = Table;\n",
  'migrations/alpha/4000000000000-platform-type.ts': "import type { NodeView } from '../../libs/contracts/src/node.js';\nexport type V = NodeView;\n",
  'services/beta/src/broken.ts': "import { gone } from './gone.js';\nexport const g = gone;\n",
};

describe('the layering rules', () => {
  let tree: string;
  let result: ReturnType<typeof checkLayers>;
  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'layering-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), text);
    }
    symlinkSync(join(repo, 'node_modules'), join(tree, 'node_modules'));
    result = checkLayers(tree);
  }, 120_000);
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it('hold over this repository', () => {
    const real = checkLayers();
    expect(real.violations).toEqual([]);
    expect(real.status).toBe(0);
    expect(real.out).toMatch(/layers: \d{3,} modules, 0 violations/);
  }, 120_000);

  it.each([
    ['a domain file importing an adapter of its service', 'domain-is-pure', 'services/alpha/src/domain/decide-adapter.ts'],
    ['a domain file importing TypeORM', 'domain-is-pure', 'services/alpha/src/domain/decide-typeorm.ts'],
    ['a domain file importing the Kubernetes client at run time', 'domain-is-pure', 'services/alpha/src/domain/decide-kube-client.ts'],
    ['a domain file importing Nest', 'domain-is-pure', 'services/alpha/src/domain/decide-nest.ts'],
    ['a domain file importing the AWS SDK', 'domain-is-pure', 'services/alpha/src/domain/decide-aws.ts'],
    ['a domain file importing libs/platform', 'domain-is-pure', 'services/alpha/src/domain/decide-platform.ts'],
    ['a domain file importing a type from an adapter', 'domain-types-only-from-kubernetes', 'services/alpha/src/domain/decide-adapter-type.ts'],
    ['a domain file reading files', 'domain-is-pure', 'services/alpha/src/domain/decide-fs.ts'],
    ['a domain file reading files (the I/O rule too)', 'no-io-in-pure-code', 'services/alpha/src/domain/decide-fs.ts'],
    ["a behaviour folder's domain file importing TypeORM", 'domain-is-pure', 'services/alpha/src/drain/domain/plan-typeorm.ts'],
    ['a service opening its own transaction on TypeORM', 'repositories-own-transactions', 'services/beta/src/beta-tx.service.ts'],
    ["a behaviour folder's service opening its own transaction", 'repositories-own-transactions', 'services/alpha/src/drain/drain.service.ts'],
    ['a service importing another service', 'services-stand-apart', 'services/alpha/src/alpha.service.ts'],
    ["a service importing another service's migrations", 'own-migrations-only', 'services/alpha/src/alpha.migrations.ts'],
    ['a lib importing a service', 'libs-never-import-services', 'libs/platform/src/uses-service.ts'],
    ['libs/contracts importing Nest', 'contracts-is-data-only', 'libs/contracts/src/uses-nest.ts'],
    ['libs/contracts importing libs/platform', 'contracts-is-data-only', 'libs/contracts/src/uses-platform.ts'],
    ['libs/scoring importing pg', 'scoring-is-pure', 'libs/scoring/src/uses-pg.ts'],
    ['libs/kube importing the Kubernetes client', 'kube-is-pure', 'libs/kube/src/uses-client.ts'],
    ['production code importing a test builder', 'production-code-not-on-tests', 'services/beta/src/uses-builder.ts'],
    ['two files importing each other at run time', 'no-circular', 'libs/platform/src/cycle-a.ts'],
    ['an import of a file that does not exist', 'no-unresolvable', 'services/beta/src/broken.ts'],
    ['a migration calling library code', 'migrations-are-history', 'migrations/alpha/2000000000000-uses-platform.ts'],
    ['a migration calling TypeORM at run time', 'migrations-are-history', 'migrations/alpha/3000000000000-uses-typeorm.ts'],
    ['a migration taking a type from a library', 'migrations-are-history-types', 'migrations/alpha/4000000000000-platform-type.ts'],
  ])('fail on %s (%s)', (_sentence, rule, from) => {
    expect(result.violations).toContain(`${rule} ${from}`);
    expect(result.status).toBe(1);
  });

  it('report nothing for the imports they allow', () => {
    const allowed = Object.keys(files).filter((f) => /decide-ok|plan-ok|drain\.repository|pure\.ts|-ok\.ts$|alpha\.module|beta\.module|beta\.repository|type-cycle|node\.ts|clock\.ts|\.builder\.ts$/.test(f));
    const flagged = result.violations.map((v) => v.split(' ')[1]);
    expect(allowed.filter((f) => flagged.includes(f))).toEqual([]);
  });
});
