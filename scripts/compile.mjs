// compile — swc over TypeScript sources with the project's .swcrc (path aliases rewritten, decorator metadata kept):
// what `npm run build` runs over every source folder (scripts/build.mjs), and what a test that rebuilds one entry
// point runs over that file, so that both compile the same way.
import { execFileSync } from 'node:child_process';

/**
 * compile — `inputs` (files or folders) compiled by swc; `to` is `{ dir }` (a tree under it, as the build) or
 * `{ file }` (one input to one output file). `ignore` is a comma-separated list of globs left out.
 */
export function compile(inputs, to, { ignore } = {}) {
  const out = 'dir' in to ? ['-d', to.dir] : ['-o', to.file];
  execFileSync(
    process.execPath,
    ['node_modules/@swc/cli/bin/swc.js', ...inputs, ...out, '--config-file', '.swcrc', ...(ignore ? ['--ignore', ignore] : []), '--quiet'],
    { stdio: 'inherit' },
  );
}
