// Compiles libs, services, migrations and bench to dist/ with swc (path aliases rewritten), skipping tests; bundles
// the production entry points in place (scripts/bundle-entries.mjs); then bundles the operator console into
// dist/console (scripts/build-console.mjs).
import { execFileSync } from 'node:child_process';
import { rmSync, existsSync } from 'node:fs';
import { buildConsole } from './build-console.mjs';
import { bundleEntries } from './bundle-entries.mjs';

const dirs = ['libs', 'services', 'migrations', 'bench', 'all-in-one'].filter((d) => existsSync(d));
rmSync('dist', { recursive: true, force: true });
execFileSync(
  process.execPath,
  ['node_modules/@swc/cli/bin/swc.js', ...dirs, '-d', 'dist', '--config-file', '.swcrc', '--ignore', '**/*.spec.ts,**/*.int.ts', '--quiet'],
  { stdio: 'inherit' },
);
await bundleEntries(process.cwd());
await buildConsole();
