import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { CodedError } from '../src/errors/coded-error.js';
import { createDataSource, databaseSocket } from '../src/database/database.js';

/**
 * A database connection that is reset or refused says only an address, or nothing at all (a reset on read carries no
 * port). The pool's own sockets mark their errors, so a caller is told "database unavailable" — through pg directly
 * and through TypeORM — whatever the address is.
 */
let resetting: net.Server;
let resetPort: number;
let refusedPort: number;

beforeAll(async () => {
  // Accepts, reads the startup packet, answers with a reset.
  resetting = net.createServer((s) => s.once('data', () => s.resetAndDestroy()));
  await new Promise<void>((r) => resetting.listen(0, '127.0.0.1', r));
  resetPort = (resetting.address() as net.AddressInfo).port;
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  refusedPort = (probe.address() as net.AddressInfo).port;
  await new Promise((r) => probe.close(r));
});
afterAll(() => new Promise((r) => resetting.close(r)));

const failure = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
};

describe('a database that resets or refuses connections is "database unavailable", never its address', () => {
  it('a reset during the start-up of a pg connection on the pool socket', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${resetPort}/x`, stream: databaseSocket } as pg.ClientConfig);
    client.on('error', () => undefined);
    const err = await failure(() => client.connect());
    expect((err as { code?: string }).code).toBe('ECONNRESET');
    const body = CodedError.from(err).toBody();
    expect(body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'database unavailable', details: { dependency: 'database' } });
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONN|\d{4,5}/);
  });

  it('the same reset on a plain socket cannot be attributed (nothing names it)', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${resetPort}/x` });
    client.on('error', () => undefined);
    const err = await failure(() => client.connect());
    expect(CodedError.from(err).message).toBe('dependency unavailable');
  });

  it.each([
    ['reset', () => resetPort],
    ['refused', () => refusedPort],
  ])('a TypeORM DataSource whose database is %s', async (_, port) => {
    const ds = createDataSource({ service: 'probe', url: `postgres://postgres@127.0.0.1:${port()}/x`, entities: [], migrations: [] });
    const err = await failure(() => ds.initialize());
    expect(CodedError.from(err).toBody()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'database unavailable', details: { dependency: 'database' } });
  });
});
