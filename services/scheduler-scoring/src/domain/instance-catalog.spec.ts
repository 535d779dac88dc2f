import { describe, expect, it } from '@jest/globals';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import { simulatePlacement, type PriceInfo, type PriceTable } from '@nodes-manager/scoring';
import { bundledCatalog, estimateMaxPods, toCatalog, type InstanceTypeFacts } from './instance-catalog.js';
import { poolKey } from '@nodes-manager/contracts';

/** aType — DescribeInstanceTypes facts of an x86 type with 2 vCPU / 8 GiB, overridden in part. */
const aType = (name: string, o: Partial<InstanceTypeFacts> = {}): InstanceTypeFacts => ({
  name,
  vcpu: 2,
  memoryMiB: 8192,
  gpus: 0,
  gpuNames: [],
  architectures: ['x86_64'],
  supportsSpot: true,
  ...o,
});
const prices = (entries: Record<string, PriceInfo> = {}): PriceTable => new Map(Object.entries(entries));
const spotFor = (type: string): PriceTable => prices({ [poolKey({ instanceType: type, zone: 'us-east-1a' })]: { spotUsdPerHour: 0.05 } });

describe('toCatalog', () => {
  it.each([
    ['a bundled type keeps EC2’s shape with the bundled On-Demand price and pod slots', aType('m5.large', { vcpu: 2, memoryMiB: 8192 }), prices(), { name: 'm5.large', family: 'm5', vcpu: 2, memoryMiB: 8192, gpu: 0, arch: 'amd64', maxPods: 29, onDemandUsdPerHour: 0.096 }],
    ['EC2’s vCPU and memory win over the bundled table’s', aType('m5.large', { vcpu: 4, memoryMiB: 9000 }), prices(), { vcpu: 4, memoryMiB: 9000, maxPods: 29 }],
    ['an arm64 type is arm64', aType('m6g.large', { architectures: ['arm64'] }), prices(), { arch: 'arm64' }],
    ['x86_64 with i386 is amd64', aType('t3.large', { architectures: ['i386', 'x86_64'] }), prices(), { arch: 'amd64' }],
    ['NVIDIA GPUs are nvidia.com/gpu with EC2’s count', aType('g5.12xlarge', { vcpu: 48, memoryMiB: 196608, gpus: 4, gpuNames: ['A10G'] }), spotFor('g5.12xlarge'), { gpu: 4, gpuResource: 'nvidia.com/gpu' }],
    ['Inferentia devices are aws.amazon.com/neuron', aType('inf2.xlarge', { vcpu: 4, memoryMiB: 16384, gpus: 1, gpuNames: ['Inferentia2'] }), prices(), { gpu: 1, gpuResource: 'aws.amazon.com/neuron', onDemandUsdPerHour: 0.7582 }],
    ['Trainium devices are aws.amazon.com/neuron', aType('trn1.2xlarge', { vcpu: 8, memoryMiB: 32768, gpus: 1, gpuNames: ['Trainium'] }), spotFor('trn1.2xlarge'), { gpuResource: 'aws.amazon.com/neuron' }],
  ] as const)('%s', (_, facts, table, expected) => {
    const { types, excluded } = toCatalog([facts], table);
    expect(excluded).toEqual([]);
    expect(types).toHaveLength(1);
    expect(types[0]).toMatchObject(expected);
  });

  it('a type the bundled table does not price stays when a Spot price is known, with no On-Demand price and estimated pod slots', () => {
    const { types } = toCatalog([aType('m7g.large', { architectures: ['arm64'] })], spotFor('m7g.large'));
    expect(types).toHaveLength(1);
    expect(types[0]).toMatchObject({ name: 'm7g.large', family: 'm7g', arch: 'arm64', maxPods: 17 });
    expect(types[0]!.onDemandUsdPerHour).toBeNaN();
  });

  it.each([
    ['a type with neither a bundled On-Demand nor a known Spot price', aType('m7g.large'), prices(), 'no_price'],
    ['a type whose only known price is On-Demand from elsewhere is still unpriced here', aType('m7g.large'), prices({ [poolKey({ instanceType: 'm7g.large', zone: 'us-east-1a' })]: { onDemandUsdPerHour: 0.08 } }), 'no_price'],
    ['a Mac type', aType('mac2.metal', { architectures: ['arm64_mac'] }), spotFor('mac2.metal'), 'unsupported_architecture'],
    ['a 32-bit-only type', aType('m1.small', { architectures: ['i386'] }), spotFor('m1.small'), 'unsupported_architecture'],
    ['an AMD GPU type (no resource InstanceTypeSpec can name)', aType('g4ad.xlarge', { gpus: 1, gpuNames: ['Radeon Pro V520'] }), spotFor('g4ad.xlarge'), 'unsupported_accelerator'],
    ['a type with devices EC2 does not name', aType('p9.xlarge', { gpus: 1, gpuNames: ['unknown'] }), spotFor('p9.xlarge'), 'unsupported_accelerator'],
    ['a type with no vCPU count', aType('m5.large', { vcpu: 0 }), prices(), 'incomplete_facts'],
    ['a type with no memory size', aType('m5.large', { memoryMiB: 0 }), prices(), 'incomplete_facts'],
  ] as const)('leaves out %s', (_, facts, table, reason) => {
    expect(toCatalog([facts], table)).toEqual({ types: [], excluded: [{ name: facts.name, reason }] });
  });

  it('sorts by name and keeps each exclusion with its type', () => {
    const { types, excluded } = toCatalog([aType('r5.large', { memoryMiB: 16384 }), aType('x9.large'), aType('c5.large', { memoryMiB: 4096 })], prices());
    expect(types.map((t) => t.name)).toEqual(['c5.large', 'r5.large']);
    expect(excluded).toEqual([{ name: 'x9.large', reason: 'no_price' }]);
  });

  it('maps the bundled table’s own facts back to the bundled table', () => {
    const facts = INSTANCE_TYPES.map((t) =>
      aType(t.name, {
        vcpu: t.vcpu,
        memoryMiB: t.memoryMiB,
        gpus: t.gpu,
        gpuNames: t.gpu === 0 ? [] : t.gpuResource === 'aws.amazon.com/neuron' ? ['Inferentia2'] : ['T4'],
        architectures: [t.arch === 'arm64' ? 'arm64' : 'x86_64'],
      }),
    );
    const { types, excluded } = toCatalog(facts, prices());
    expect(excluded).toEqual([]);
    expect(types).toEqual([...INSTANCE_TYPES].sort((a, b) => a.name.localeCompare(b.name)));
  });

  it('simulate buys an unpriced-On-Demand type as Spot only', () => {
    const { types } = toCatalog([aType('m7g.large', { architectures: ['arm64'] })], spotFor('m7g.large'));
    const r = simulatePlacement({
      pods: [{ name: 'web', requests: { cpuMilli: 500, memoryBytes: 512 * 2 ** 20, gpu: 0 }, count: 1, class: 'stateless' }],
      nodes: [],
      catalog: types,
      prices: spotFor('m7g.large'),
    });
    expect(r.additions.map((a) => [a.instanceType, a.capacityType])).toEqual([['m7g.large', 'spot']]);
  });
});

describe('estimateMaxPods', () => {
  it.each([
    ['a larger size of a bundled family takes its largest smaller sibling’s value', 'm5.12xlarge', 48, 196608, 234],
    ['a burstable larger than every bundled sibling', 't3.2xlarge', 8, 32768, 58],
    ['a size below every bundled sibling falls back to the size rule (nano/micro/small)', 't3.small', 2, 2048, 4],
    ['GPU families keep their low bundled value', 'g4dn.4xlarge', 16, 65536, 29],
    ['an unknown family, ≤ 2 vCPU with < 4 GiB', 't4g.micro', 2, 1024, 4],
    ['an unknown family, ≤ 2 vCPU', 'm7g.large', 2, 8192, 17],
    ['an unknown family, ≤ 8 vCPU', 'm7g.2xlarge', 8, 32768, 29],
    ['an unknown family, above 8 vCPU', 'm7g.4xlarge', 16, 65536, 58],
  ] as const)('%s (%s)', (_, name, vcpu, memoryMiB, expected) => {
    expect(estimateMaxPods(name, vcpu, memoryMiB)).toBe(expected);
  });
});

describe('bundledCatalog', () => {
  it('is the bundled table, saying why when there is a reason', () => {
    expect(bundledCatalog()).toEqual({ types: INSTANCE_TYPES, source: 'bundled' });
    expect(bundledCatalog('TIMEOUT: no answer')).toEqual({ types: INSTANCE_TYPES, source: 'bundled', detail: 'TIMEOUT: no answer' });
  });
});
