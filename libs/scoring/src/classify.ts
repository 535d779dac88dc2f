import type { QosClass, ScoringPod, WorkloadClass } from './types.js';

/**
 * classifyWorkload — the pod's workload class, first match wins (docs/scoring.md#ranking-nodes-for-a-pod):
 * `gpu` (requests any of nvidia.com/gpu, amd.com/gpu, aws.amazon.com/neuron — summed in `requests.gpu`),
 * `stateful` (owned by a StatefulSet or mounts a PVC), `batch` (owned by a Job or CronJob),
 * `latency_sensitive` (QoS Guaranteed), else `stateless`.
 */
export function classifyWorkload(pod: ScoringPod): WorkloadClass {
  if (pod.requests.gpu > 0) return 'gpu';
  if (pod.ownerKind === 'StatefulSet' || pod.hasPvc === true || (pod.pvcZones?.length ?? 0) > 0) return 'stateful';
  if (pod.ownerKind === 'Job' || pod.ownerKind === 'CronJob') return 'batch';
  if (podQos(pod) === 'Guaranteed') return 'latency_sensitive';
  return 'stateless';
}

/**
 * podQos — the pod's QoS class as given, else derived like the kubelet: BestEffort when nothing is requested
 * or limited; Guaranteed when cpu and memory limits are set and equal the requests; else Burstable.
 * (Derived from the pod-level sums, which is what the lean input carries.)
 */
export function podQos(pod: ScoringPod): QosClass {
  if (pod.qos) return pod.qos;
  const { requests, limits } = pod;
  const anyLimit = (limits?.cpuMilli ?? 0) > 0 || (limits?.memoryBytes ?? 0) > 0;
  if (requests.cpuMilli <= 0 && requests.memoryBytes <= 0 && !anyLimit) return 'BestEffort';
  if (
    limits !== undefined &&
    (limits.cpuMilli ?? 0) > 0 &&
    (limits.memoryBytes ?? 0) > 0 &&
    limits.cpuMilli === requests.cpuMilli &&
    limits.memoryBytes === requests.memoryBytes
  ) {
    return 'Guaranteed';
  }
  return 'Burstable';
}

/** workloadKey — `namespace/workload` identifying the pods that spread together; undefined for a lone pod. */
export function workloadKey(pod: ScoringPod): string | undefined {
  const name = pod.workload ?? pod.ownerName;
  return name === undefined ? undefined : `${pod.namespace}/${name}`;
}

/** avoidsSpotByDefault — stateful and latency-sensitive pods stay off Spot unless a caller says otherwise. */
export function avoidsSpotByDefault(cls: WorkloadClass): boolean {
  return cls === 'stateful' || cls === 'latency_sensitive';
}
