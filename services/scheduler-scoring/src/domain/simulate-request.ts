import type { SimulateRequest } from '@nodes-manager/contracts';
import { WORKLOAD_CLASSES, type SimulatePodGroup, type TaintEffect, type WorkloadClass } from '@nodes-manager/scoring';
import { milliValue, value } from '@nodes-manager/kube';

export type SimulateGroupsResult = { ok: true; groups: SimulatePodGroup[] } | { ok: false; problems: { field: string; problem: string }[] };

/**
 * toSimulateGroups — the API's pod groups (quantities as strings, validated in shape by the gateway) as
 * libs/scoring's: cpu in millicores, memory in bytes. A quantity that parses to nothing or to zero on both
 * cpu and memory is refused with the field named.
 */
export function toSimulateGroups(req: SimulateRequest): SimulateGroupsResult {
  const problems: { field: string; problem: string }[] = [];
  const groups = req.pods.map((p, i): SimulatePodGroup => {
    const cpu = milliValue(p.cpu);
    const mem = value(p.memory);
    if (cpu === undefined || cpu < 0) problems.push({ field: `pods.${i}.cpu`, problem: 'must be a Kubernetes CPU quantity' });
    if (mem === undefined || mem < 0) problems.push({ field: `pods.${i}.memory`, problem: 'must be a Kubernetes memory quantity' });
    if ((cpu ?? 0) <= 0 && (mem ?? 0) <= 0 && (p.gpu ?? 0) <= 0) problems.push({ field: `pods.${i}`, problem: 'must request some cpu, memory or gpu' });
    const cls = p.workloadClass && (WORKLOAD_CLASSES as readonly string[]).includes(p.workloadClass) ? (p.workloadClass as WorkloadClass) : undefined;
    return {
      name: p.name ?? `group-${i}`,
      requests: { cpuMilli: cpu ?? 0, memoryBytes: mem ?? 0, gpu: p.gpu ?? 0 },
      count: p.count,
      ...(cls ? { class: cls } : {}),
      ...(p.nodeSelector ? { nodeSelector: p.nodeSelector } : {}),
      ...(p.tolerations ? { tolerations: p.tolerations.map((t) => ({ ...t, effect: t.effect as TaintEffect | undefined })) } : {}),
      ...(p.zone ? { zone: p.zone } : {}),
    };
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, groups };
}
