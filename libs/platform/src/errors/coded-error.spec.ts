import { describe, expect, it } from '@jest/globals';
import { CodedError, INTERNAL_MESSAGE, registerDependency, validationFailed } from './coded-error.js';

registerDependency('database', 'postgres://nodes@db.internal:6543/nodes');
registerDependency('message broker', 'amqp://guest:guest@mq.internal:5673');

const socketError = (code: string, port?: number) => Object.assign(new Error(`connect ${code} 10.0.0.7:${port ?? 0}`), { code, errno: -111, syscall: 'connect', address: '10.0.0.7', ...(port ? { port } : {}) });
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL', routine: 'ProcessInterrupts' });

describe('CodedError.from: what a caller may be told about a failure', () => {
  it.each([
    ['a refused connection to the database port is "database unavailable"', socketError('ECONNREFUSED', 6543), 'SERVICE_UNAVAILABLE', 'database unavailable'],
    ['a reset connection to the broker port is "message broker unavailable"', socketError('ECONNRESET', 5673), 'SERVICE_UNAVAILABLE', 'message broker unavailable'],
    ['a reset on a database connection (marked by its socket, no port) is "database unavailable"', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read', dependency: 'database' }), 'SERVICE_UNAVAILABLE', 'database unavailable'],
    ['a refused connection to an unknown port names no address', socketError('ECONNREFUSED', 1234), 'SERVICE_UNAVAILABLE', 'dependency unavailable'],
    ['an AggregateError of refused connections carries the port in its errors', Object.assign(new AggregateError([socketError('ECONNREFUSED', 6543)], 'connect failed'), { code: 'ECONNREFUSED' }), 'SERVICE_UNAVAILABLE', 'database unavailable'],
    ['Postgres shutting down (57P01) is "database unavailable"', pgError('57P01', 'terminating connection due to administrator command'), 'SERVICE_UNAVAILABLE', 'database unavailable'],
    ['Postgres out of connections (53300) is "database unavailable"', pgError('53300', 'sorry, too many clients already'), 'SERVICE_UNAVAILABLE', 'database unavailable'],
    ["node-postgres' lost connection is \"database unavailable\"", new Error('Connection terminated unexpectedly'), 'SERVICE_UNAVAILABLE', 'database unavailable'],
    ['a query error wrapping a lost connection is "database unavailable"', Object.assign(new Error('x'), { name: 'QueryFailedError', driverError: pgError('08006', 'connection failure') }), 'SERVICE_UNAVAILABLE', 'database unavailable'],
    ['a NUL byte refused by Postgres is an internal error, its text kept from the caller', pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'), 'INTERNAL', INTERNAL_MESSAGE],
    ['a plain bug is an internal error', new TypeError("Cannot read properties of undefined (reading 'name')"), 'INTERNAL', INTERNAL_MESSAGE],
    ['a thrown string is an internal error', 'boom at 10.0.0.7:5432', 'INTERNAL', INTERNAL_MESSAGE],
    ['a coded body from another service stays as it is', { code: 'NOT_FOUND', message: 'node x not found' }, 'NOT_FOUND', 'node x not found'],
  ])('%s', (_, err, code, message) => {
    const coded = CodedError.from(err);
    expect({ code: coded.code, message: coded.message }).toEqual({ code, message });
    expect(JSON.stringify(coded.toBody())).not.toMatch(/10\.0\.0\.7|db\.internal|mq\.internal|6543|5673|0x00/);
  });

  it('keeps the original error as the cause, for the log', () => {
    const err = new Error('relation "nodes.x" does not exist');
    expect(CodedError.from(err).cause).toBe(err);
  });

  it('builds the one VALIDATION_FAILED shape', () => {
    expect(validationFailed([{ in: 'query', field: 'limit', message: 'must be at most 500' }]).toBody()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'limit: must be at most 500',
      details: { errors: [{ in: 'query', field: 'limit', message: 'must be at most 500' }] },
    });
  });
});
