import { describe, expect, it } from '@jest/globals';
import { provisionArguments, resolveLaunch, sameArguments, type LaunchSettings, type ProvisionRequest } from './provisioning.js';

const aRequest = (over: Partial<ProvisionRequest> = {}): ProvisionRequest => ({
  instanceType: 'm5.large',
  count: 1,
  clientToken: 'tok',
  dryRun: false,
  ...over,
});

describe('resolveLaunch', () => {
  it.each<[string, LaunchSettings, unknown]>([
    ['a template id launches from the template', { PROVISION_LAUNCH_TEMPLATE_ID: 'lt-1' }, { ok: true, source: 'launch-template', launch: { launchTemplate: { id: 'lt-1' } } }],
    [
      'a template name with a version, even with an AMI set, launches from the template',
      { PROVISION_LAUNCH_TEMPLATE_NAME: 'workers', PROVISION_LAUNCH_TEMPLATE_VERSION: '$Latest', PROVISION_IMAGE_ID: 'ami-1' },
      { ok: true, source: 'launch-template', launch: { launchTemplate: { name: 'workers', version: '$Latest' } } },
    ],
    [
      'an AMI launches with its subnet and security groups',
      { PROVISION_IMAGE_ID: 'ami-1', PROVISION_SUBNET_ID: 'subnet-1', PROVISION_SECURITY_GROUP_IDS: ['sg-1', 'sg-2'] },
      { ok: true, source: 'image', launch: { imageId: 'ami-1', subnetId: 'subnet-1', securityGroupIds: ['sg-1', 'sg-2'] } },
    ],
    ['an AMI alone leaves network to the default VPC', { PROVISION_IMAGE_ID: 'ami-1', PROVISION_SECURITY_GROUP_IDS: [] }, { ok: true, source: 'image', launch: { imageId: 'ami-1' } }],
    [
      'both template id and name is refused, naming both',
      { PROVISION_LAUNCH_TEMPLATE_ID: 'lt-1', PROVISION_LAUNCH_TEMPLATE_NAME: 'workers' },
      { ok: false, variables: ['PROVISION_LAUNCH_TEMPLATE_ID', 'PROVISION_LAUNCH_TEMPLATE_NAME'] },
    ],
    [
      'nothing set names every variable that would do',
      { PROVISION_SUBNET_ID: 'subnet-1' },
      { ok: false, variables: expect.arrayContaining(['PROVISION_LAUNCH_TEMPLATE_ID', 'PROVISION_LAUNCH_TEMPLATE_NAME', 'PROVISION_IMAGE_ID']) },
    ],
  ])('%s', (_what, settings, expected) => {
    expect(resolveLaunch(settings)).toMatchObject(expected as object);
  });
});

describe('sameArguments', () => {
  it.each<[string, ProvisionRequest, ProvisionRequest, boolean]>([
    ['the same request is the same', aRequest(), aRequest(), true],
    ['token and dry-run flag do not count', aRequest({ clientToken: 'a', dryRun: true }), aRequest({ clientToken: 'b' }), true],
    ['tag order does not count', aRequest({ tags: { a: '1', b: '2' } }), aRequest({ tags: { b: '2', a: '1' } }), true],
    ['no tags equals empty tags', aRequest(), aRequest({ tags: {} }), true],
    ['another count differs', aRequest(), aRequest({ count: 2 }), false],
    ['another type differs', aRequest(), aRequest({ instanceType: 'c5.large' }), false],
    ['a zone differs from none', aRequest(), aRequest({ zone: 'us-east-1a' }), false],
    ['another tag value differs', aRequest({ tags: { a: '1' } }), aRequest({ tags: { a: '2' } }), false],
  ])('%s', (_what, a, b, same) => {
    expect(sameArguments(provisionArguments(a), provisionArguments(b))).toBe(same);
  });

  it('survives a round trip through jsonb (keys reordered)', () => {
    const stored = JSON.parse(JSON.stringify({ tags: { b: '2', a: '1' }, zone: null, count: 1, instanceType: 'm5.large' }));
    expect(sameArguments(stored, provisionArguments(aRequest({ tags: { a: '1', b: '2' } })))).toBe(true);
  });
});
