// Compiles libs, services, migrations and bench to dist/ with swc (path aliases rewritten), skipping tests; then
// bundles the operator console into dist/console (scripts/build-console.mjs).
import { execFileSync } from 'node:child_process';
import { rmSync, existsSync } from 'node:fs';
import { buildConsole } from './build-console.mjs';

const dirs = ['libs', 'services', 'migrations', 'bench', 'all-in-one'].filter((d) => existsSync(d));
rmSync('dist', { recursive: true, force: true });
execFileSync(
  process.execPath,
  ['node_modules/@swc/cli/bin/swc.js', ...dirs, '-d', 'dist', '--config-file', '.swcrc', '--ignore', '**/*.spec.ts,**/*.int.ts', '--quiet'],
  { stdio: 'inherit' },
);
await buildConsole();
