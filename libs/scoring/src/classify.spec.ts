import { describe, expect, it } from '@jest/globals';
import { classifyWorkload, podQos } from './classify.js';
import { aPod, MiB } from './testing/builders.js';

describe('classifyWorkload', () => {
  it.each([
    ['a pod requesting a GPU is gpu, even in a StatefulSet', aPod({ requests: { cpuMilli: 1000, memoryBytes: 0, gpu: 1 }, ownerKind: 'StatefulSet' }), 'gpu'],
    ['a StatefulSet pod is stateful', aPod({ ownerKind: 'StatefulSet' }), 'stateful'],
    ['a Deployment pod that mounts a PVC is stateful', aPod({ hasPvc: true }), 'stateful'],
    ['a pod with a bound volume zone is stateful', aPod({ pvcZones: ['us-east-1a'] }), 'stateful'],
    ['a Job pod is batch', aPod({ ownerKind: 'Job' }), 'batch'],
    ['a CronJob pod is batch, even when Guaranteed', aPod({ ownerKind: 'CronJob', qos: 'Guaranteed' }), 'batch'],
    ['a Guaranteed Deployment pod is latency_sensitive', aPod({ qos: 'Guaranteed' }), 'latency_sensitive'],
    [
      'a pod whose limits equal its requests is latency_sensitive',
      aPod({ requests: { cpuMilli: 500, memoryBytes: 512 * MiB, gpu: 0 }, limits: { cpuMilli: 500, memoryBytes: 512 * MiB } }),
      'latency_sensitive',
    ],
    ['a Burstable Deployment pod is stateless', aPod({ qos: 'Burstable' }), 'stateless'],
    ['a pod without a controller is stateless', aPod({ ownerKind: undefined }), 'stateless'],
  ])('%s', (_, pod, expected) => {
    expect(classifyWorkload(pod)).toBe(expected);
  });
});

describe('podQos', () => {
  it.each([
    ['nothing requested or limited is BestEffort', aPod({ requests: { cpuMilli: 0, memoryBytes: 0, gpu: 0 } }), 'BestEffort'],
    ['requests without limits are Burstable', aPod(), 'Burstable'],
    [
      'limits above requests are Burstable',
      aPod({ requests: { cpuMilli: 100, memoryBytes: MiB, gpu: 0 }, limits: { cpuMilli: 200, memoryBytes: MiB } }),
      'Burstable',
    ],
    ['a given QoS wins', aPod({ qos: 'Guaranteed' }), 'Guaranteed'],
  ])('%s', (_, pod, expected) => {
    expect(podQos(pod)).toBe(expected);
  });
});
