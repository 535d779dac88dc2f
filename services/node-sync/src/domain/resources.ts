import { parseBytes, parseCount, parseCpuMilli } from './quantity.js';

/** Accelerator resources counted as `gpu` (docs/scoring.md#ranking-nodes-for-a-pod). */
export const GPU_RESOURCES = ['nvidia.com/gpu', 'amd.com/gpu', 'aws.amazon.com/neuron'] as const;

/** ResourceAmounts — cpu in millicores, memory in bytes, accelerators and pods as counts. */
export interface ResourceAmounts {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly gpu: number;
}

export const ZERO_RESOURCES: ResourceAmounts = { cpuMilli: 0, memoryBytes: 0, gpu: 0 };

/** resourceAmounts — a `{cpu, memory, nvidia.com/gpu, …}` map as numbers; missing or malformed values count 0. */
export function resourceAmounts(list: Readonly<Record<string, string>> | undefined): ResourceAmounts {
  const gpu = GPU_RESOURCES.reduce((sum, key) => sum + (list?.[key] ? (parseCount(list[key]) ?? 0) : 0), 0);
  return {
    cpuMilli: list?.['cpu'] ? (parseCpuMilli(list['cpu']) ?? 0) : 0,
    memoryBytes: list?.['memory'] ? (parseBytes(list['memory']) ?? 0) : 0,
    gpu,
  };
}

export const addResources = (a: ResourceAmounts, b: ResourceAmounts): ResourceAmounts => ({
  cpuMilli: a.cpuMilli + b.cpuMilli,
  memoryBytes: a.memoryBytes + b.memoryBytes,
  gpu: a.gpu + b.gpu,
});

export const maxResources = (a: ResourceAmounts, b: ResourceAmounts): ResourceAmounts => ({
  cpuMilli: Math.max(a.cpuMilli, b.cpuMilli),
  memoryBytes: Math.max(a.memoryBytes, b.memoryBytes),
  gpu: Math.max(a.gpu, b.gpu),
});
