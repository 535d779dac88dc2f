// Bundles the operator console (console/src) with esbuild into one folder the api-gateway serves at `/`:
// index.html plus content-hashed assets/*.js|css. Everything is bundled (no CDN), see docs/console.md.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** buildConsole — writes the console to `outdir` (default dist/console) and returns the files written. */
export async function buildConsole({ outdir = join(root, 'dist', 'console'), minify = true } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['console/src/main.tsx'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    minify,
    sourcemap: 'linked',
    legalComments: 'linked',
    entryNames: 'assets/[name]-[hash]',
    assetNames: 'assets/[name]-[hash]',
    outdir,
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => f.slice(f.indexOf('assets/')));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`console build produced no ${js ? 'css' : 'js'} bundle`);
  const html = readFileSync(join(root, 'console', 'src', 'index.html'), 'utf8').replace('%SCRIPT%', js).replace('%STYLE%', css);
  writeFileSync(join(outdir, 'index.html'), html);
  return { outdir, files: ['index.html', ...outputs.map((f) => basename(f))] };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outdir, files } = await buildConsole();
  process.stdout.write(`console: ${files.length} files in ${outdir}\n`);
}
