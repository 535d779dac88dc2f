// Compiles libs, services, migrations and bench to dist/ with swc (path aliases rewritten), skipping tests; bundles
// the production entry points in place (scripts/bundle-entries.mjs); then bundles the operator console into
// dist/console (scripts/build-console.mjs).
import { rmSync, existsSync } from 'node:fs';
import { buildConsole } from './build-console.mjs';
import { bundleEntries } from './bundle-entries.mjs';
import { compile } from './compile.mjs';

const dirs = ['libs', 'services', 'migrations', 'bench', 'all-in-one'].filter((d) => existsSync(d));
rmSync('dist', { recursive: true, force: true });
compile(dirs, { dir: 'dist' }, { ignore: '**/*.spec.ts,**/*.int.ts' });
await bundleEntries(process.cwd());
await buildConsole();
