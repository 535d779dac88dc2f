// Two large packages as one file each, for Jest: Jest loads every module again for every test file (its module
// registry is per file), and @kubernetes/client-node (about 830 small ES modules) and TypeORM (about 980 CommonJS
// files) cost a second or so of CPU each time. Bundled once with esbuild — the package's own files only, its
// dependencies still loaded from node_modules — into node_modules/.cache, by the package's version and the bundle's
// options, and mapped in jest.config.js. The production entry points bundle both the same way
// (scripts/bundle-entries.mjs), so the tests run them as the services do.
import { buildSync } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BUNDLE } from '../bundle-entries.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cache = join(root, 'node_modules/.cache/nodes-manager');

/** Writes `contents` to `path` through a file of this process's own, renamed into place: two Jest runs start side by side. */
function put(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/** The package's directory, version and entry file. */
function pkg(name) {
  const dir = join(root, 'node_modules', name);
  const { version, main } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return { dir, version, entry: join(dir, main ?? 'index.js') };
}

/** bundle — the package's own files as one, in `format`; its dependencies left to node_modules. */
function bundle(entry, options, outfile) {
  return buildSync({ entryPoints: [entry], ...options, packages: 'external', write: false, outfile, logLevel: 'error' }).outputFiles[0].contents;
}

const hash = (options) => createHash('sha1').update(JSON.stringify(options)).digest('hex').slice(0, 8);

/** kubeClientBundle — the path of @kubernetes/client-node as one ES module, built first when this version has none yet. */
export function kubeClientBundle() {
  const { version, entry } = pkg('@kubernetes/client-node');
  const out = join(cache, `kubernetes-client-node-${version}-${hash(NODE_BUNDLE)}.mjs`);
  if (!existsSync(out)) put(out, bundle(entry, NODE_BUNDLE, out));
  return out;
}

/**
 * typeormBundle — the path of TypeORM as one CommonJS module, built first when this version has none yet. It stays
 * CommonJS, as @nestjs/typeorm also `require`s it: the ES modules that import it by name and that require get one
 * TypeORM. Jest finds a CommonJS module's names with cjs-module-lexer, which cannot read them out of a bundle (its
 * modules assign `module.exports` of their own); so the mapped file is a short one that requires the bundle and lists
 * its names in the form the lexer reads (`0 && (module.exports = { … })`, as esbuild writes for ES modules).
 */
export function typeormBundle() {
  const { version, entry } = pkg('typeorm');
  const options = { ...NODE_BUNDLE, format: 'cjs' };
  const stem = join(cache, `typeorm-${version}-${hash(options)}`);
  const out = `${stem}.cjs`;
  if (existsSync(out)) return out;
  const body = `${stem}.bundle.cjs`;
  put(body, bundle(entry, options, body));
  const names = Object.keys(createRequire(import.meta.url)(body)).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
  put(out, `const typeorm = require(${JSON.stringify(body)});\nmodule.exports = typeorm;\n0 && (module.exports = { ${names.join(', ')} });\n`);
  return out;
}
