import { INSTANCE_TYPES, type InstanceTypeFacts, type InstanceTypeSpec } from '@nodes-manager/contracts';
import type { PriceTable } from '@nodes-manager/scoring';

export type { InstanceTypeFacts } from '@nodes-manager/contracts';

/** Where simulate's and scale-up's instance catalog came from. */
export type CatalogSource = 'spot-advisor' | 'bundled';

export interface CatalogSnapshot {
  readonly types: readonly InstanceTypeSpec[];
  readonly source: CatalogSource;
  /** Why the bundled catalog was used (spot-advisor's error), when it was. */
  readonly detail?: string;
  /** Types EC2 offers that were left out, with why (mapped catalogs only). */
  readonly excluded?: readonly CatalogExclusion[];
}

/** Why an EC2 type is not in the catalog simulate may buy from. */
export type CatalogExclusionReason = 'incomplete_facts' | 'unsupported_architecture' | 'unsupported_accelerator' | 'no_price';

export interface CatalogExclusion {
  readonly name: string;
  readonly reason: CatalogExclusionReason;
}

const BUNDLED = new Map(INSTANCE_TYPES.map((t) => [t.name, t]));

/** bundledCatalog — the catalog in @nodes-manager/contracts: what simulate uses when spot-advisor does not answer. */
export function bundledCatalog(detail?: string): CatalogSnapshot {
  return { types: INSTANCE_TYPES, source: 'bundled', ...(detail ? { detail } : {}) };
}

/** archOf — EC2's SupportedArchitectures as a node's `kubernetes.io/arch`; Mac and 32-bit-only types have none. */
function archOf(architectures: readonly string[]): InstanceTypeSpec['arch'] | undefined {
  if (architectures.includes('x86_64')) return 'amd64';
  if (architectures.includes('arm64')) return 'arm64';
  return undefined;
}

/**
 * acceleratorResourceOf — the extended resource a type's accelerators show up as: AWS Inferentia and Trainium
 * as `aws.amazon.com/neuron` (Neuron device plugin), NVIDIA GPUs as `nvidia.com/gpu`. Other makers (AMD Radeon,
 * Habana Gaudi) advertise resources `InstanceTypeSpec` cannot name, and a type with devices but no names cannot
 * be told apart: both are undefined, and the type is left out rather than described wrongly.
 */
const NEURON = /^(inferentia|trainium)/i;
const NOT_NVIDIA = /^(radeon|gaudi)/i;
function acceleratorResourceOf(f: InstanceTypeFacts): InstanceTypeSpec['gpuResource'] | undefined {
  if (f.gpuNames.length === 0) return undefined;
  if (f.gpuNames.every((n) => NEURON.test(n))) return 'aws.amazon.com/neuron';
  if (f.gpuNames.some((n) => NEURON.test(n) || NOT_NVIDIA.test(n) || n === 'unknown')) return undefined;
  return 'nvidia.com/gpu';
}

/**
 * estimateMaxPods — pod slots of a type the bundled table does not list. The VPC CNI limit is
 * ENIs × (IPv4 addresses per ENI − 1) + 2, and `instancetypes.list` carries no ENI data, so this is a
 * conservative estimate (an underestimate costs a spare node in a proposal, an overestimate a proposal that
 * cannot hold its pods):
 * - bundled types of the same family with no more vCPUs and no more memory: the largest of their values (a
 *   larger size of a family never has fewer ENIs or addresses per ENI, so each is a lower bound), e.g.
 *   m5.12xlarge → m5.8xlarge's 234, t3.2xlarge → t3.xlarge's 58;
 * - else by size, the lowest value AWS publishes for types of that size: ≤ 2 vCPU with < 4 GiB (nano, micro,
 *   small) 4; ≤ 2 vCPU 17 (t3.medium); ≤ 8 vCPU 29 (g4dn.xlarge); above 58.
 */
export function estimateMaxPods(name: string, vcpu: number, memoryMiB: number): number {
  const family = name.split('.')[0]!;
  const smaller = INSTANCE_TYPES.filter((t) => t.family === family && t.vcpu <= vcpu && t.memoryMiB <= memoryMiB);
  if (smaller.length > 0) return Math.max(...smaller.map((t) => t.maxPods));
  if (vcpu <= 2) return memoryMiB < 4096 ? 4 : 17;
  if (vcpu <= 8) return 29;
  return 58;
}

/** spotPricedTypes — the types with a Spot price in some zone of the table (keys are `type/zone`). */
function spotPricedTypes(prices: PriceTable): Set<string> {
  const out = new Set<string>();
  for (const [key, info] of prices) if (info.spotUsdPerHour !== undefined) out.add(key.slice(0, key.lastIndexOf('/')));
  return out;
}

/**
 * toCatalog — spot-advisor's EC2 facts as simulate's catalog. vCPU, memory, accelerator count and resource and
 * architecture come from EC2; `onDemandUsdPerHour` and `maxPods` from the bundled table when it lists the type.
 * A type it does not list has no known On-Demand price: it stays only when `prices` holds a Spot price for it
 * (simulate then buys it as Spot only; the price is never invented), its `onDemandUsdPerHour` is NaN (simulate
 * reads On-Demand prices from the price table and the bundled table by name, never from the spec), and its
 * `maxPods` is {@link estimateMaxPods}. Every type left out is listed with its reason. Sorted by name.
 */
export function toCatalog(facts: readonly InstanceTypeFacts[], prices: PriceTable): { types: InstanceTypeSpec[]; excluded: CatalogExclusion[] } {
  const types: InstanceTypeSpec[] = [];
  const excluded: CatalogExclusion[] = [];
  const spotPriced = spotPricedTypes(prices);
  for (const f of [...facts].sort((a, b) => a.name.localeCompare(b.name))) {
    const arch = archOf(f.architectures);
    const gpuResource = f.gpus > 0 ? acceleratorResourceOf(f) : undefined;
    const bundled = BUNDLED.get(f.name);
    const reason: CatalogExclusionReason | undefined =
      !(f.vcpu > 0) || !(f.memoryMiB > 0) || !f.name.includes('.')
        ? 'incomplete_facts'
        : !arch
          ? 'unsupported_architecture'
          : f.gpus > 0 && !gpuResource
            ? 'unsupported_accelerator'
            : !bundled && !spotPriced.has(f.name)
              ? 'no_price'
              : undefined;
    if (reason !== undefined || arch === undefined) {
      excluded.push({ name: f.name, reason: reason ?? 'unsupported_architecture' });
      continue;
    }
    types.push({
      name: f.name,
      family: f.name.split('.')[0]!,
      vcpu: f.vcpu,
      memoryMiB: f.memoryMiB,
      gpu: f.gpus,
      ...(gpuResource ? { gpuResource } : {}),
      arch,
      maxPods: bundled?.maxPods ?? estimateMaxPods(f.name, f.vcpu, f.memoryMiB),
      onDemandUsdPerHour: bundled?.onDemandUsdPerHour ?? Number.NaN,
    });
  }
  return { types, excluded };
}
