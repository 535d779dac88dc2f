import { describe, expect, it } from '@jest/globals';
import { ConfigError, clusterIdentity, commonShape, defineConfigSpec, env, loadConfig, maskUrlCredentials, redactConfig, splitMode } from '../index.js';

const spec = defineConfigSpec({
  service: 'example',
  shape: { ...commonShape, HEALTH_PORT: env.port(8121), GRACE: env.number({ dflt: 15, min: 0 }), ENABLED: env.bool(true), MANAGERS: env.list(['a']) },
  secrets: ['AUTH_JWT_ACCESS_SECRET'],
});
const good = { DATABASE_URL: 'postgres://u:pw@db:5432/x', AUTH_JWT_ACCESS_SECRET: 's3cr3t-value-of-at-least-32-characters', SCAN_INTERVAL_SECONDS: '30' };

describe('loadConfig', () => {
  it('parses a good environment with defaults applied', () => {
    const c = loadConfig(spec, good);
    expect(c).toMatchObject({ SCAN_INTERVAL_SECONDS: 30, DATABASE_POOL_SIZE: 10, GRACE: 15, ENABLED: true, MANAGERS: ['a'], HEALTH_PORT: 8121, LOG_LEVEL: 'info' });
  });

  it('accepts decimals where a number is allowed', () => {
    expect(loadConfig(spec, { ...good, GRACE: '0.05' }).GRACE).toBe(0.05);
  });

  it('reports every bad or missing variable in one error', () => {
    const bad = { DATABASE_URL: 'mysql://x', SCAN_INTERVAL_SECONDS: 'soon', HEALTH_PORT: '70000', ENABLED: 'maybe' };
    let err: unknown;
    try {
      loadConfig(spec, bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const vars = (err as ConfigError).problems.map((p) => p.variable).sort();
    expect(vars).toEqual(['AUTH_JWT_ACCESS_SECRET', 'DATABASE_URL', 'ENABLED', 'HEALTH_PORT', 'SCAN_INTERVAL_SECONDS']);
    expect((err as Error).message).toContain('5 configuration problems');
    expect((err as Error).message).toContain('SCAN_INTERVAL_SECONDS: must be a number');
    expect((err as Error).message).toContain('AUTH_JWT_ACCESS_SECRET: is required');
  });

  it.each([
    ['SCAN_INTERVAL_SECONDS is required, with no default', { ...good, SCAN_INTERVAL_SECONDS: '' }, 'SCAN_INTERVAL_SECONDS'],
    ['AUTH_JWT_ACCESS_SECRET is required', { ...good, AUTH_JWT_ACCESS_SECRET: undefined }, 'AUTH_JWT_ACCESS_SECRET'],
    ['a negative grace period is refused', { ...good, GRACE: '-1' }, 'GRACE'],
    ['a JWT secret shorter than an HS256 key (32 characters) is refused', { ...good, AUTH_JWT_ACCESS_SECRET: 'short-secret' }, 'AUTH_JWT_ACCESS_SECRET'],
    ['a database pool of no connection is refused', { ...good, DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    ['a database pool of part of a connection is refused', { ...good, DATABASE_POOL_SIZE: '2.5' }, 'DATABASE_POOL_SIZE'],
  ])('%s', (_, source, variable) => {
    expect(() => loadConfig(spec, source)).toThrow(new RegExp(`${variable}:`));
  });

  it('requires RABBITMQ_URL in split mode only', () => {
    expect(() => loadConfig(spec, good)).not.toThrow();
    expect(() => loadConfig(splitMode(spec), good)).toThrow(/RABBITMQ_URL: is required/);
    expect(loadConfig(splitMode(spec), { ...good, RABBITMQ_URL: 'amqp://g:g@h:5672' }).RABBITMQ_URL).toBe('amqp://g:g@h:5672');
  });
});

describe('cluster identity', () => {
  it('defaults to the cluster "local", its id being its name', () => {
    expect(clusterIdentity(loadConfig(spec, good))).toEqual({ id: 'local', name: 'local' });
    expect(clusterIdentity(loadConfig(spec, { ...good, CLUSTER_NAME: 'prod-eu-1' }))).toEqual({ id: 'prod-eu-1', name: 'prod-eu-1' });
  });

  it('takes an EKS cluster ARN as the id', () => {
    const arn = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu-1';
    expect(clusterIdentity(loadConfig(spec, { ...good, CLUSTER_NAME: 'prod-eu-1', CLUSTER_ID: arn }))).toEqual({ id: arn, name: 'prod-eu-1' });
  });

  it.each([
    ['CLUSTER_NAME', 'Prod EU', 'must be a DNS label'],
    ['CLUSTER_NAME', 'x'.repeat(64), 'must be a DNS label'],
    ['CLUSTER_ID', 'id with spaces', 'must be letters, digits'],
    ['CLUSTER_ID', 'a'.repeat(257), 'at most 256'],
  ])('refuses %s=%s, naming the variable and the problem', (variable, value, problem) => {
    let err: unknown;
    try {
      loadConfig(spec, { ...good, [variable]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const found = (err as ConfigError).problems.find((p) => p.variable === variable);
    expect(found?.problem ?? JSON.stringify(found)).toContain(problem);
  });
});

describe('redactConfig', () => {
  it('hides secrets and passwords inside URLs', () => {
    const r = redactConfig(loadConfig(spec, good), spec.secrets);
    expect(r['AUTH_JWT_ACCESS_SECRET']).toBe('[REDACTED]');
    expect(JSON.stringify(r)).not.toContain('s3cr3t-value-of-at-least-32-characters');
    expect(JSON.stringify(r)).not.toContain(':pw@');
  });
  it('masks credentials in a URL', () => {
    expect(maskUrlCredentials('amqp://guest:topsecret@host:5672/')).toBe('amqp://guest:***@host:5672/');
  });
});
