/**
 * InstanceTypeSpec — the bundled EC2 instance-type catalog shared by the fleet generator, the EC2 simulator,
 * scheduler-scoring (simulate, consolidation) and spot-advisor (On-Demand prices).
 *
 * Source: AWS public On-Demand pricing for Linux in us-east-1 and the EC2 instance-type specifications, as
 * published by AWS and unchanged through 2024–2025 (table dated {@link ON_DEMAND_PRICE_TABLE_DATE}). Prices
 * for other regions are not in this table: callers must say "unknown" rather than invent one.
 * Data only: no I/O, no logic beyond lookups.
 */
export interface InstanceTypeSpec {
  readonly name: string;
  readonly family: string;
  readonly vcpu: number;
  readonly memoryMiB: number;
  /** Accelerators: count and the extended resource they show up as on the node. */
  readonly gpu: number;
  readonly gpuResource?: 'nvidia.com/gpu' | 'aws.amazon.com/neuron';
  readonly arch: 'amd64' | 'arm64';
  /** Pods the VPC CNI allows on this type (ENIs × (IPs per ENI − 1) + 2). */
  readonly maxPods: number;
  /** On-Demand USD per hour, Linux, us-east-1. */
  readonly onDemandUsdPerHour: number;
}

export const ON_DEMAND_PRICE_TABLE_DATE = '2025-06-01';
export const ON_DEMAND_PRICE_TABLE_REGION = 'us-east-1';

const t = (
  name: string,
  vcpu: number,
  memoryGiB: number,
  onDemandUsdPerHour: number,
  maxPods: number,
  extra: Partial<Pick<InstanceTypeSpec, 'gpu' | 'gpuResource' | 'arch'>> = {},
): InstanceTypeSpec => ({
  name,
  family: name.split('.')[0]!,
  vcpu,
  memoryMiB: memoryGiB * 1024,
  gpu: extra.gpu ?? 0,
  ...(extra.gpuResource ? { gpuResource: extra.gpuResource } : {}),
  arch: extra.arch ?? 'amd64',
  maxPods,
  onDemandUsdPerHour,
});

const arm = { arch: 'arm64' as const };

export const INSTANCE_TYPES: readonly InstanceTypeSpec[] = [
  t('t3.medium', 2, 4, 0.0416, 17),
  t('t3.large', 2, 8, 0.0832, 35),
  t('t3.xlarge', 4, 16, 0.1664, 58),
  t('m5.large', 2, 8, 0.096, 29),
  t('m5.xlarge', 4, 16, 0.192, 58),
  t('m5.2xlarge', 8, 32, 0.384, 58),
  t('m5.4xlarge', 16, 64, 0.768, 234),
  t('m5.8xlarge', 32, 128, 1.536, 234),
  t('m6i.large', 2, 8, 0.096, 29),
  t('m6i.xlarge', 4, 16, 0.192, 58),
  t('m6i.2xlarge', 8, 32, 0.384, 58),
  t('m6i.4xlarge', 16, 64, 0.768, 234),
  t('m7i.large', 2, 8, 0.1008, 29),
  t('m7i.xlarge', 4, 16, 0.2016, 58),
  t('m7i.2xlarge', 8, 32, 0.4032, 58),
  t('m6g.large', 2, 8, 0.077, 29, arm),
  t('m6g.xlarge', 4, 16, 0.154, 58, arm),
  t('m6g.2xlarge', 8, 32, 0.308, 58, arm),
  t('c5.large', 2, 4, 0.085, 29),
  t('c5.xlarge', 4, 8, 0.17, 58),
  t('c5.2xlarge', 8, 16, 0.34, 58),
  t('c5.4xlarge', 16, 32, 0.68, 234),
  t('c6i.large', 2, 4, 0.085, 29),
  t('c6i.xlarge', 4, 8, 0.17, 58),
  t('c6i.2xlarge', 8, 16, 0.34, 58),
  t('c6i.4xlarge', 16, 32, 0.68, 234),
  t('c6g.large', 2, 4, 0.068, 29, arm),
  t('c6g.xlarge', 4, 8, 0.136, 58, arm),
  t('c6g.2xlarge', 8, 16, 0.272, 58, arm),
  t('r5.large', 2, 16, 0.126, 29),
  t('r5.xlarge', 4, 32, 0.252, 58),
  t('r5.2xlarge', 8, 64, 0.504, 58),
  t('r5.4xlarge', 16, 128, 1.008, 234),
  t('r6i.large', 2, 16, 0.126, 29),
  t('r6i.xlarge', 4, 32, 0.252, 58),
  t('r6i.2xlarge', 8, 64, 0.504, 58),
  t('g4dn.xlarge', 4, 16, 0.526, 29, { gpu: 1, gpuResource: 'nvidia.com/gpu' }),
  t('g4dn.2xlarge', 8, 32, 0.752, 29, { gpu: 1, gpuResource: 'nvidia.com/gpu' }),
  t('g5.xlarge', 4, 16, 1.006, 58, { gpu: 1, gpuResource: 'nvidia.com/gpu' }),
  t('g5.2xlarge', 8, 32, 1.212, 58, { gpu: 1, gpuResource: 'nvidia.com/gpu' }),
  t('p3.2xlarge', 8, 61, 3.06, 58, { gpu: 1, gpuResource: 'nvidia.com/gpu' }),
  t('inf2.xlarge', 4, 16, 0.7582, 58, { gpu: 1, gpuResource: 'aws.amazon.com/neuron' }),
];

const BY_NAME = new Map(INSTANCE_TYPES.map((i) => [i.name, i]));

/** instanceType — the catalog entry for `name`, or undefined when the type is not in the bundled table. */
export function instanceType(name: string): InstanceTypeSpec | undefined {
  return BY_NAME.get(name);
}
