import { milliValue, value } from './quantity.js';

/** The extended resources that count as GPUs: NVIDIA and AMD GPUs and AWS Neuron devices (docs/kubernetes.md). */
export const GPU_RESOURCE_NAMES = ['nvidia.com/gpu', 'amd.com/gpu', 'aws.amazon.com/neuron'] as const;

/** ResourceList — a `{cpu, memory, nvidia.com/gpu, pods, …}` map as the API sends it. */
export type ResourceList = Readonly<Record<string, string | number | undefined>>;

/** ResourceAmounts — cpu in millicores, memory in bytes, GPUs (all {@link GPU_RESOURCE_NAMES} together) as a count. */
export interface ResourceAmounts {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly gpu: number;
}

/** NodeResources — a node's capacity or allocatable: {@link ResourceAmounts} plus its pod slots. */
export interface NodeResources extends ResourceAmounts {
  readonly pods: number;
}

export const ZERO_RESOURCES: ResourceAmounts = Object.freeze({ cpuMilli: 0, memoryBytes: 0, gpu: 0 });

/** gpuCount — Σ of the GPU resources in a list; a malformed amount counts 0. */
export function gpuCount(list: ResourceList | undefined): number {
  return gpusOf(list, undefined);
}

/** resourceAmounts — a resource list as numbers (cpu rounded up to millicores); missing or malformed values count 0. */
export function resourceAmounts(list: ResourceList | undefined): ResourceAmounts {
  return list ? amountsOf(list, undefined) : ZERO_RESOURCES;
}

/** pick — the list's amount of `name`, else the fallback's (a request missing from `list` defaulted from its limit). */
const pick = (list: ResourceList | undefined, fallback: ResourceList | undefined, name: string): string | number | undefined => {
  const v = list?.[name];
  return v !== undefined ? v : fallback?.[name];
};

/**
 * amountsOf — the amounts `list` holds, each missing one taken from `fallback`: what a merged `{...fallback, ...list}`
 * would give, read without building it (it runs for every container of a million pods).
 */
function amountsOf(list: ResourceList | undefined, fallback: ResourceList | undefined): ResourceAmounts {
  const cpu = pick(list, fallback, 'cpu');
  const memory = pick(list, fallback, 'memory');
  return { cpuMilli: cpu !== undefined ? (milliValue(cpu) ?? 0) : 0, memoryBytes: memory !== undefined ? (value(memory) ?? 0) : 0, gpu: gpusOf(list, fallback) };
}

/** gpusOf — Σ of the GPU resources `list` holds, each missing one taken from `fallback`; a malformed amount counts 0. */
function gpusOf(list: ResourceList | undefined, fallback: ResourceList | undefined): number {
  let gpu = 0;
  for (const name of GPU_RESOURCE_NAMES) {
    const v = pick(list, fallback, name);
    if (v !== undefined) gpu += value(v) ?? 0;
  }
  return gpu;
}

/** nodeResources — a node's capacity or allocatable list as numbers, with its pod slots. */
export function nodeResources(list: ResourceList | undefined): NodeResources {
  return { ...resourceAmounts(list), pods: list?.['pods'] !== undefined ? (value(list['pods']) ?? 0) : 0 };
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

/** ContainerLike — the part of a container the resource rules read. */
export interface ContainerLike {
  readonly restartPolicy?: string;
  readonly resources?: { readonly requests?: ResourceList; readonly limits?: ResourceList };
}

/** PodSpecLike — the part of a pod spec the resource rules read. */
export interface PodSpecLike {
  readonly containers?: readonly ContainerLike[];
  readonly initContainers?: readonly ContainerLike[];
  readonly overhead?: ResourceList;
}

/**
 * containerRequests — a container's requests, each missing one defaulted to its limit (the API server's defaulting
 * rule, so a raw object and a stored one count the same).
 */
export function containerRequests(c: ContainerLike): ResourceAmounts {
  const requests = c.resources?.requests;
  const limits = c.resources?.limits;
  if (!limits) return resourceAmounts(requests);
  return amountsOf(requests, limits);
}

/**
 * effectiveResources — kube-scheduler's pod request (`resource.PodRequests`): per resource,
 * max(Σ regular containers + Σ restartable init containers (sidecars), each regular init container plus the sidecars
 * started before it, the sidecars so far) + the pod overhead. `field` picks requests (defaulted from limits) or limits.
 */
export function effectiveResources(spec: PodSpecLike | undefined, field: 'requests' | 'limits' = 'requests'): ResourceAmounts {
  const of = (c: ContainerLike): ResourceAmounts => (field === 'requests' ? containerRequests(c) : resourceAmounts(c.resources?.limits));
  let sidecars = ZERO_RESOURCES;
  let initPeak = ZERO_RESOURCES;
  for (const init of spec?.initContainers ?? []) {
    if (init.restartPolicy === 'Always') {
      sidecars = addResources(sidecars, of(init));
      initPeak = maxResources(initPeak, sidecars);
    } else {
      initPeak = maxResources(initPeak, addResources(sidecars, of(init)));
    }
  }
  let running = sidecars;
  for (const c of spec?.containers ?? []) running = addResources(running, of(c));
  return addResources(maxResources(running, initPeak), resourceAmounts(spec?.overhead));
}
