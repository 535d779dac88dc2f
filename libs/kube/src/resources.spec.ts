import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { aContainer, aKubePod } from './testing/builders.js';
import { containerRequests, effectiveResources, gpuCount, nodeResources, resourceAmounts, type ResourceAmounts } from './resources.js';

const Mi = 2 ** 20;
const amounts = (cpuMilli: number, memMi: number, gpu = 0): ResourceAmounts => ({ cpuMilli, memoryBytes: memMi * Mi, gpu });
const sidecar = (requests: Record<string, string>, name = 'sidecar') => aContainer(requests, undefined, { name, restartPolicy: 'Always' });
const init = (requests: Record<string, string>, name = 'init') => aContainer(requests, undefined, { name });

describe('effectiveResources (kube-scheduler PodRequests)', () => {
  it.each([
    ['one container counts its requests', { containers: [aContainer({ cpu: '250m', memory: '256Mi' })] }, amounts(250, 256)],
    ['containers add up', { containers: [aContainer({ cpu: '250m', memory: '256Mi' }), aContainer({ cpu: '750m', memory: '256Mi' }, undefined, { name: 'b' })] }, amounts(1000, 512)],
    ['a missing request defaults to its limit', { containers: [aContainer({ cpu: '100m' }, { cpu: '1', memory: '1Gi' })] }, amounts(100, 1024)],
    ['only limits: the requests are the limits', { containers: [aContainer(undefined, { cpu: '2', memory: '2Gi' })] }, amounts(2000, 2048)],
    ['an init container bigger than the app sets the peak', { initContainers: [init({ cpu: '2', memory: '64Mi' })], containers: [aContainer({ cpu: '500m', memory: '512Mi' })] }, amounts(2000, 512)],
    ['init containers run one by one: the largest counts, not the sum', { initContainers: [init({ cpu: '1' }, 'a'), init({ cpu: '1' }, 'b')], containers: [aContainer({ cpu: '100m' })] }, amounts(1000, 0)],
    ['a sidecar runs beside the app: it adds', { initContainers: [sidecar({ cpu: '200m', memory: '64Mi' })], containers: [aContainer({ cpu: '500m', memory: '512Mi' })] }, amounts(700, 576)],
    ['an init container after a sidecar runs beside it', { initContainers: [sidecar({ cpu: '500m' }), init({ cpu: '1' })], containers: [aContainer({ cpu: '100m' })] }, amounts(1500, 0)],
    ['an init container before a sidecar does not add it', { initContainers: [init({ cpu: '1' }), sidecar({ cpu: '500m' })], containers: [aContainer({ cpu: '100m' })] }, amounts(1000, 0)],
    ['the pod overhead is added on top', { containers: [aContainer({ cpu: '250m', memory: '256Mi' })], overhead: { cpu: '250m', memory: '160Mi' } }, amounts(500, 416)],
    ['GPUs of every known kind count', { containers: [aContainer({ cpu: '1', 'nvidia.com/gpu': '1' }), aContainer({ 'aws.amazon.com/neuron': '2' }, undefined, { name: 'b' })] }, amounts(1000, 0, 3)],
    ['an unknown extended resource is not a GPU', { containers: [aContainer({ 'example.com/fpga': '1' })] }, amounts(0, 0, 0)],
    ['a malformed request counts 0', { containers: [aContainer({ cpu: 'lots', memory: '1Mi' })] }, amounts(0, 1)],
    ['no containers, no requests', {}, amounts(0, 0)],
  ])('%s', (_, spec, expected) => {
    expect(effectiveResources(spec)).toEqual(expected);
  });

  it('limits follow the same rule, overhead included', () => {
    const spec = { initContainers: [sidecar({})], containers: [aContainer({ cpu: '1' }, { cpu: '2', memory: '1Gi' })], overhead: { cpu: '100m' } };
    expect(effectiveResources(spec, 'limits')).toEqual(amounts(2100, 1024));
  });

  it('a pod built by the shared builder requests 100m / 128Mi', () => {
    expect(effectiveResources(aKubePod('web-1', 'node-1').spec)).toEqual(amounts(100, 128));
  });

  it('is never less than any single container and never more than everything summed', () => {
    const req = fc.record({ cpu: fc.integer({ min: 0, max: 4000 }), mem: fc.integer({ min: 0, max: 4096 }) });
    const container = fc.record({ r: req, sidecar: fc.boolean() });
    fc.assert(
      fc.property(fc.array(container, { maxLength: 4 }), fc.array(req, { minLength: 1, maxLength: 4 }), (inits, apps) => {
        const c = (r: { cpu: number; mem: number }, name: string, always = false) => aContainer({ cpu: `${r.cpu}m`, memory: `${r.mem}Mi` }, undefined, { name, ...(always ? { restartPolicy: 'Always' } : {}) });
        const spec = { initContainers: inits.map((i, n) => c(i.r, `i${n}`, i.sidecar)), containers: apps.map((a, n) => c(a, `c${n}`)) };
        const eff = effectiveResources(spec);
        const all = [...inits.map((i) => i.r), ...apps];
        const sum = all.reduce((s, r) => s + r.cpu, 0);
        return all.every((r) => eff.cpuMilli >= r.cpu) && eff.cpuMilli <= sum && eff.cpuMilli >= apps.reduce((s, r) => s + r.cpu, 0);
      }),
    );
  });
});

describe('resource lists', () => {
  it('a node list reads cpu, memory, gpus and pod slots', () => {
    expect(nodeResources({ cpu: '3920m', memory: '15021176Ki', pods: '58', 'nvidia.com/gpu': '4' })).toEqual({ cpuMilli: 3920, memoryBytes: 15_381_684_224, gpu: 4, pods: 58 });
  });
  it('an absent list is zero', () => {
    expect(resourceAmounts(undefined)).toEqual(amounts(0, 0));
    expect(gpuCount({ 'amd.com/gpu': '1', 'nvidia.com/gpu': '2' })).toBe(3);
  });
  it.each([
    ['requests only', { requests: { cpu: '250m', memory: '64Mi' } }, amounts(250, 64)],
    ['limits only: requests default to them', { limits: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1' } }, amounts(1000, 1024, 1)],
    ['a request wins over its limit, the rest from the limits', { requests: { cpu: '100m' }, limits: { cpu: '2', memory: '256Mi' } }, amounts(100, 256)],
    ['an undefined request is missing: its limit counts', { requests: { cpu: undefined, memory: '32Mi' }, limits: { cpu: '500m' } }, amounts(500, 32)],
    ['a malformed request counts 0, not its limit', { requests: { cpu: 'lots' }, limits: { cpu: '1' } }, amounts(0, 0)],
    ['GPUs of every kind add up, requests over limits', { requests: { 'amd.com/gpu': '2' }, limits: { 'amd.com/gpu': '4', 'aws.amazon.com/neuron': '1' } }, amounts(0, 0, 3)],
  ])('a container reads its requests, each missing one defaulted to its limit: %s', (_, resources, want) => {
    expect(containerRequests({ resources })).toEqual(want);
  });
});
