// The Kubernetes client as one ES module, for Jest: @kubernetes/client-node is about 830 small ES modules, which Jest
// loads again for every test file (its module registry is per file), a second or so of CPU each time. Bundled once
// with esbuild — its own files only, its dependencies still imported from node_modules — into node_modules/.cache, by
// the package's version and the bundle's options, and mapped in jest.config.js. The production entry points bundle it the same way
// (scripts/bundle-entries.mjs), so the tests run the client as the services do.
import { buildSync } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BUNDLE } from '../bundle-entries.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** kubeClientBundle — the path of the bundle, built first when this version of the package has none yet. */
export function kubeClientBundle() {
  const pkg = join(root, 'node_modules/@kubernetes/client-node');
  const { version, main } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const options = createHash('sha1').update(JSON.stringify(NODE_BUNDLE)).digest('hex').slice(0, 8);
  const out = join(root, 'node_modules/.cache/nodes-manager', `kubernetes-client-node-${version}-${options}.mjs`);
  if (existsSync(out)) return out;
  const [file] = buildSync({
    entryPoints: [join(pkg, main)],
    ...NODE_BUNDLE,
    packages: 'external',
    write: false,
    outfile: out,
    logLevel: 'error',
  }).outputFiles;
  mkdirSync(dirname(out), { recursive: true });
  // Two Jest runs start side by side (scripts/test.mjs): each writes its own file and renames it into place.
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, file.contents);
  renameSync(tmp, out);
  return out;
}
