import { describe, expect, it } from '@jest/globals';
import { JsonLogger } from './logger.js';

const capture = () => {
  const lines: string[] = [];
  return { lines, logger: new JsonLogger('svc', 'debug', (l) => lines.push(l)) };
};

describe('JsonLogger', () => {
  it('writes one JSON object per line with stable keys', () => {
    const { lines, logger } = capture();
    logger.info('uncordoned', { node: 'n1', reason: 'UNCORDON' });
    const e = JSON.parse(lines[0]!);
    expect(e).toMatchObject({ level: 'info', service: 'svc', msg: 'uncordoned', node: 'n1', reason: 'UNCORDON' });
    expect(typeof e.time).toBe('string');
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
