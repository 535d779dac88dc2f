import { describe, expect, it } from '@jest/globals';
import { awsConfigProblem, loadSpotAdvisorConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://u@h/db', AUTH_JWT_ACCESS_SECRET: 'a-secret-of-at-least-32-characters!', SCAN_INTERVAL_SECONDS: '60' };

describe('awsConfigProblem', () => {
  it.each<[string, Record<string, string>, string[] | undefined]>([
    ['no region is a problem naming AWS_REGION', {}, ['AWS_REGION']],
    ['a region with no keys uses the SDK default chain', { AWS_REGION: 'us-east-1' }, undefined],
    ['a region with both keys is configured', { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' }, undefined],
    ['a key id without its secret names the secret', { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'a' }, ['AWS_SECRET_ACCESS_KEY']],
    ['a secret without its key id names the key id', { AWS_REGION: 'us-east-1', AWS_SECRET_ACCESS_KEY: 'b' }, ['AWS_ACCESS_KEY_ID']],
  ])('%s', (_what, env, missing) => {
    expect(awsConfigProblem(loadSpotAdvisorConfig({ ...base, ...env }))?.missing).toEqual(missing);
  });
});

it('parses the provisioning variables and defaults', () => {
  const c = loadSpotAdvisorConfig({ ...base, PROVISION_SECURITY_GROUP_IDS: 'sg-1, sg-2' });
  expect(c).toMatchObject({ SPOT_PRICE_CACHE_SECONDS: 300, SPOT_PRICE_WINDOW_HOURS: 168, INSTANCE_TYPES_CACHE_SECONDS: 3600, PROVISION_SECURITY_GROUP_IDS: ['sg-1', 'sg-2'] });
  expect(c.PROVISION_IMAGE_ID).toBeUndefined();
});
