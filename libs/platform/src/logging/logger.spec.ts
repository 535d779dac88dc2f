import { describe, expect, it } from '@jest/globals';
import { JsonLogger } from './logger.js';
import { requestIdFrom, runWithRequestId } from './request-context.js';

const capture = () => {
  const lines: string[] = [];
  return { lines, logger: new JsonLogger('svc', 'debug', (l) => lines.push(l)) };
};

describe('JsonLogger (pino)', () => {
  it('writes one JSON object per line with stable keys', () => {
    const { lines, logger } = capture();
    logger.info('uncordoned', { node: 'n1', reason: 'UNCORDON' });
    const e = JSON.parse(lines[0]!);
    expect(e).toMatchObject({ level: 'info', service: 'svc', msg: 'uncordoned', node: 'n1', reason: 'UNCORDON' });
    expect(new Date(e.time).toISOString()).toBe(e.time);
  });

  it('takes Nest call shapes: a trailing string is the context, an Error becomes err', () => {
    const { lines, logger } = capture();
    logger.error('boom', new Error('disk full'), 'RoutesResolver');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: 'boom', context: 'RoutesResolver', err: { message: 'disk full' } });
  });

  it('carries the request id of the request being served, also across awaits', async () => {
    const { lines, logger } = capture();
    await runWithRequestId('req-42', async () => {
      await new Promise((r) => setTimeout(r, 1));
      logger.info('handled', { node: 'n1' });
    });
    logger.info('outside');
    expect(lines.map((l) => JSON.parse(l).requestId)).toEqual(['req-42', undefined]);
  });

  it.each([
    ['keeps a caller id made of safe characters', 'abc-123_x.y:z', 'abc-123_x.y:z'],
    ['replaces an id with spaces or quotes', 'a "b"', undefined],
    ['replaces an id longer than 128 characters', 'x'.repeat(129), undefined],
    ['generates one when none is sent', undefined, undefined],
  ])('requestIdFrom %s', (_, header, kept) => {
    const id = requestIdFrom(header);
    if (kept) expect(id).toBe(kept);
    else expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['a registered secret value anywhere in a message', () => JsonLogger.registerSecret('hunter2-secret'), 'connecting with hunter2-secret'],
    ['a password inside a connection URL', () => undefined, 'dialing postgres://app:pa55word@db/x'],
  ])('never prints %s', (_, setup, msg) => {
    setup();
    const { lines, logger } = capture();
    logger.warn(msg);
    expect(lines[0]).not.toMatch(/hunter2-secret|pa55word/);
    expect(lines[0]).toContain('[REDACTED]');
  });

  it('redacts values of secret-looking keys', () => {
    const { lines, logger } = capture();
    logger.info('request', { authorization: 'Bearer abc.def.ghi', nested: { apiToken: 'xyz' } });
    expect(lines[0]).not.toContain('abc.def.ghi');
    expect(lines[0]).not.toContain('xyz');
  });

  it('drops messages below its level and suppresses exact repeats', () => {
    const lines: string[] = [];
    const logger = new JsonLogger('svc', 'info', (l) => lines.push(l));
    logger.debug('hidden');
    logger.info('same');
    logger.info('same');
    logger.info('same');
    logger.info('different');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['same', 'previous message repeated', 'different']);
    expect(JSON.parse(lines[1]!).repeats).toBe(2);
  });

});
