// One RabbitMQ virtual host per Jest worker, so test files that run at the same time never share a queue or an
// exchange (their names — a service's command queue, `nodes.events` — are global within a vhost). The vhosts are
// made before the first test file and removed after the last: through the management plugin's HTTP API when it
// answers (TEST_RABBITMQ_MANAGEMENT_URL, default port 15672 of the broker's host), otherwise with `rabbitmqctl` when
// the broker runs on this machine (.ci/run starts it there). When neither can, every worker shares the vhost of
// TEST_RABBITMQ_URL, which is only safe with one worker: see `isolation` and scripts/test.mjs.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const DEFAULT_RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** The variable that names this run's vhost prefix; a worker's vhost is `<prefix>_w<JEST_WORKER_ID>`. */
export const PREFIX_VARIABLE = 'NM_TEST_VHOST_PREFIX';

const baseUrl = () => process.env['TEST_RABBITMQ_URL'] ?? DEFAULT_RABBITMQ_URL;

/** vhostOf — the vhost an AMQP URL names ('/' when it names none). */
export function vhostOf(url) {
  const path = new URL(url).pathname;
  return path.length > 1 ? decodeURIComponent(path.slice(1)) : '/';
}

/** withVhost — `url` naming `vhost` instead. */
export function withVhost(url, vhost) {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(vhost)}`;
  return u.toString();
}

/** workerVhost — the vhost of Jest worker `id` under `prefix`. */
export const workerVhost = (prefix, id) => `${prefix}_w${id}`;

function managementUrl(url) {
  if (process.env['TEST_RABBITMQ_MANAGEMENT_URL']) return process.env['TEST_RABBITMQ_MANAGEMENT_URL'].replace(/\/$/, '');
  return `http://${new URL(url).hostname}:15672`;
}

const credentials = (url) => {
  const u = new URL(url);
  return { user: decodeURIComponent(u.username || 'guest'), password: decodeURIComponent(u.password || 'guest') };
};

/** The management API, or null when it does not answer. */
async function httpApi(url) {
  const base = managementUrl(url);
  const { user, password } = credentials(url);
  const headers = { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await fetch(`${base}/api${path}`, { method, headers, body: body && JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    if (!res.ok && !(method === 'DELETE' && res.status === 404)) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return method === 'GET' ? res.json() : undefined;
  };
  const up = await fetch(`${base}/api/overview`, { headers, signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
  if (!up) return null;
  return {
    how: `the management API at ${base}`,
    async create(vhosts) {
      for (const v of vhosts) {
        await call('PUT', `/vhosts/${encodeURIComponent(v)}`, {});
        await call('PUT', `/permissions/${encodeURIComponent(v)}/${encodeURIComponent(user)}`, { configure: '.*', write: '.*', read: '.*' });
      }
    },
    async list() {
      return (await call('GET', '/vhosts?columns=name')).map((v) => v.name);
    },
    async remove(vhosts) {
      await Promise.all(vhosts.map((v) => call('DELETE', `/vhosts/${encodeURIComponent(v)}`)));
    },
  };
}

/** rabbitmqctl, or null when the broker is not on this machine or the tool cannot reach it. */
async function ctl(url) {
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(new URL(url).hostname)) return null;
  // On PATH is enough here: whether it reaches the broker shows when the vhosts are made (each call takes seconds).
  if (!(process.env['PATH'] ?? '').split(delimiter).some((d) => d && existsSync(join(d, 'rabbitmqctl')))) return null;
  const { user } = credentials(url);
  return {
    how: 'rabbitmqctl',
    // One call for all of them (each call starts an Erlang VM: seconds): vhosts and permissions as definitions. The
    // file is readable by all: rabbitmqctl reads it as the broker's user (and 3.10 does not read "-", stdin).
    async create(vhosts) {
      const definitions = {
        vhosts: vhosts.map((name) => ({ name })),
        permissions: vhosts.map((vhost) => ({ user, vhost, configure: '.*', write: '.*', read: '.*' })),
      };
      const file = join(tmpdir(), `nm-vhosts-${process.pid}-${randomBytes(4).toString('hex')}.json`);
      writeFileSync(file, JSON.stringify(definitions), { mode: 0o644 });
      try {
        await run('rabbitmqctl', ['-q', 'import_definitions', file], { timeout: 60_000 });
      } finally {
        rmSync(file, { force: true });
      }
    },
    async list() {
      const { stdout } = await run('rabbitmqctl', ['-q', 'list_vhosts', 'name'], { timeout: 60_000 });
      return stdout.split('\n').map((l) => l.trim()).filter((l) => l && l !== 'name');
    },
    async remove(vhosts) {
      if (!vhosts.length) return;
      const list = vhosts.map((v) => `<<${JSON.stringify(v)}>>`).join(', ');
      const erl = `lists:foreach(fun(V) -> rabbit_vhost:delete(V, <<"jest">>) end, [${list}]).`;
      await run('rabbitmqctl', ['-q', 'eval', erl], { timeout: 60_000 }).catch(() =>
        Promise.all(vhosts.map((v) => run('rabbitmqctl', ['-q', 'delete_vhost', v], { timeout: 60_000 }).catch(() => undefined))),
      );
    },
  };
}

/** isolation — how vhosts can be made for the broker of TEST_RABBITMQ_URL, or null when there is no way. */
export async function isolation(url = baseUrl()) {
  return (await httpApi(url)) ?? (await ctl(url));
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/**
 * createWorkerVhosts — `workers` vhosts under a prefix unique to this process (`<base vhost>_j<pid>`), made through
 * `tool`; returns the prefix, the names, and the vhosts a run that ended without its teardown left behind (same
 * base, a process of this machine that is gone), for the teardown to remove with its own.
 */
export async function createWorkerVhosts(tool, workers, url = baseUrl()) {
  const base = vhostOf(url) === '/' ? 'nm' : vhostOf(url);
  const prefix = `${base}_j${process.pid}`;
  const vhosts = Array.from({ length: workers }, (_, i) => workerVhost(prefix, i + 1));
  const ours = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_j(\\d+)_w\\d+$`);
  const [, existing] = await Promise.all([tool.create(vhosts), tool.list().catch(() => [])]);
  const stale = existing.filter((v) => ours.test(v) && !alive(Number(ours.exec(v)[1])));
  return { prefix, vhosts, stale };
}
