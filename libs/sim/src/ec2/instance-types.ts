import { INSTANCE_TYPES, type InstanceTypeSpec } from '@nodes-manager/contracts';
import { anyMatch, decodeToken, Ec2ApiError, encodeToken, filtersParam, intParam, listParam, type QueryParams } from './query.js';
import type { XmlValue } from './xml.js';

/** describeInstanceTypes — DescribeInstanceTypes over the bundled catalog, paged (MaxResults 5–100, default 100). */
export function describeInstanceTypes(params: QueryParams): Record<string, XmlValue> {
  const names = listParam(params, 'InstanceType');
  const unknown = names.filter((n) => !INSTANCE_TYPES.some((t) => t.name === n));
  if (unknown.length > 0) {
    throw new Ec2ApiError('InvalidInstanceType', `The following supplied instance types do not exist: [${unknown.join(', ')}]`);
  }
  const maxResults = intParam(params, 'MaxResults', 5, 100);
  if (names.length > 0 && maxResults !== undefined) {
    throw new Ec2ApiError('InvalidParameterCombination', 'The parameter InstanceTypes cannot be used with the parameter MaxResults');
  }
  const filters = filtersParam(params);
  const selected = INSTANCE_TYPES.filter((t) => names.length === 0 || names.includes(t.name)).filter((t) =>
    filters.every((f) => typeMatches(t, f.name, f.values)),
  );
  const offset = params.has('NextToken') ? Number(decodeToken<{ o: number }>(params.get('NextToken')!).o) : 0;
  const size = maxResults ?? 100;
  const page = selected.slice(offset, offset + size);
  return {
    instanceTypeSet: page.map(instanceTypeXml),
    nextToken: offset + size < selected.length ? encodeToken({ o: offset + size }) : undefined,
  };
}

function architectureOf(t: InstanceTypeSpec): string {
  return t.arch === 'arm64' ? 'arm64' : 'x86_64';
}

function typeMatches(t: InstanceTypeSpec, name: string, values: readonly string[]): boolean {
  switch (name) {
    case 'instance-type':
      return anyMatch(values, t.name);
    case 'processor-info.supported-architecture':
      return anyMatch(values, architectureOf(t));
    case 'vcpu-info.default-vcpus':
      return anyMatch(values, String(t.vcpu));
    case 'memory-info.size-in-mib':
      return anyMatch(values, String(t.memoryMiB));
    case 'current-generation':
      return anyMatch(values, 'true');
    default:
      throw new Ec2ApiError('InvalidParameterValue', `The filter '${name}' is invalid`);
  }
}

/** The accelerator names the catalog's types carry, as EC2 reports them. */
const ACCELERATOR_NAMES: Record<string, { name: string; manufacturer: string; memoryMiB: number }> = {
  g4dn: { name: 'T4', manufacturer: 'NVIDIA', memoryMiB: 16384 },
  g5: { name: 'A10G', manufacturer: 'NVIDIA', memoryMiB: 24576 },
  p3: { name: 'V100', manufacturer: 'NVIDIA', memoryMiB: 16384 },
  inf2: { name: 'Inferentia2', manufacturer: 'AWS', memoryMiB: 32768 },
};

function instanceTypeXml(t: InstanceTypeSpec): XmlValue {
  const accel = ACCELERATOR_NAMES[t.family] ?? { name: 'GPU', manufacturer: 'NVIDIA', memoryMiB: 16384 };
  const cores = Math.max(1, t.family.startsWith('t') || t.arch === 'arm64' ? t.vcpu : t.vcpu / 2);
  return {
    instanceType: t.name,
    currentGeneration: true,
    freeTierEligible: false,
    supportedUsageClasses: ['on-demand', 'spot'],
    supportedRootDeviceTypes: ['ebs'],
    supportedVirtualizationTypes: ['hvm'],
    bareMetal: false,
    hypervisor: 'nitro',
    processorInfo: { supportedArchitectures: [architectureOf(t)] },
    vCpuInfo: { defaultVCpus: t.vcpu, defaultCores: cores, defaultThreadsPerCore: t.vcpu / cores },
    memoryInfo: { sizeInMiB: t.memoryMiB },
    instanceStorageSupported: false,
    gpuInfo:
      t.gpu > 0 && t.gpuResource === 'nvidia.com/gpu'
        ? {
            gpus: [{ name: accel.name, manufacturer: accel.manufacturer, count: t.gpu, memoryInfo: { sizeInMiB: accel.memoryMiB } }],
            totalGpuMemoryInMiB: accel.memoryMiB * t.gpu,
          }
        : undefined,
    neuronInfo:
      t.gpu > 0 && t.gpuResource === 'aws.amazon.com/neuron'
        ? {
            neuronDevices: [{ count: t.gpu, name: accel.name, coreInfo: { count: 2, version: 2 }, memoryInfo: { sizeInMiB: accel.memoryMiB } }],
            totalNeuronDeviceMemoryInMiB: accel.memoryMiB * t.gpu,
          }
        : undefined,
    burstablePerformanceSupported: t.family.startsWith('t'),
    hibernationSupported: false,
    dedicatedHostsSupported: true,
    autoRecoverySupported: true,
    supportedBootModes: t.arch === 'arm64' ? ['uefi'] : ['legacy-bios', 'uefi'],
  };
}
