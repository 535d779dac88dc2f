import { PressureReliefOutcome, UncordonReason, type PsiResource, type UncordonVerdict } from '@nodes-manager/contracts';

/** PodMemory — one pod on a node as relief sees it: its QoS class, what it uses and what it asked for. */
export interface PodMemory {
  readonly namespace: string;
  readonly name: string;
  readonly qosClass: 'BestEffort' | 'Burstable' | 'Guaranteed';
  readonly daemonSet: boolean;
  readonly mirror: boolean;
  readonly workingSetBytes: number;
  readonly requestBytes: number;
}

/** PsiReading — the node's PSI from one Summary API answer: null per resource where the kubelet reports none. */
export interface PsiReading {
  readonly cpu: PsiResource | null;
  readonly memory: PsiResource | null;
  readonly io: PsiResource | null;
  /** Working-set bytes per pod, keyed `namespace/name`. */
  readonly podMemory: ReadonlyMap<string, number>;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function psiOf(section: unknown): PsiResource | null {
  const psi = (section as { psi?: { some?: Record<string, unknown>; full?: Record<string, unknown> } } | undefined)?.psi;
  if (!psi?.some || !psi.full) return null;
  const some = { avg10: num(psi.some['avg10']), avg60: num(psi.some['avg60']) };
  const full = { avg10: num(psi.full['avg10']), avg60: num(psi.full['avg60']) };
  if (some.avg10 === null || some.avg60 === null || full.avg10 === null || full.avg60 === null) return null;
  return { some: { avg10: some.avg10, avg60: some.avg60 }, full: { avg10: full.avg10, avg60: full.avg60 } };
}

/**
 * psiFromSummary — the PSI of a kubelet Summary API answer (`node.cpu.psi`, `node.memory.psi`, `node.io.psi`, each
 * `{some, full}` with `avg10`/`avg60` in percent, KEP-4205) and the pods' memory working sets. A kubelet without
 * the KubeletPSI feature reports no `psi`: that resource is null (shown as `unknown`).
 */
export function psiFromSummary(summary: unknown): PsiReading {
  const s = summary as { node?: Record<string, unknown>; pods?: Array<{ podRef?: { namespace?: string; name?: string }; memory?: { workingSetBytes?: unknown } }> } | undefined;
  const podMemory = new Map<string, number>();
  for (const p of s?.pods ?? []) {
    const ws = num(p.memory?.workingSetBytes);
    if (p.podRef?.namespace && p.podRef.name && ws !== null) podMemory.set(`${p.podRef.namespace}/${p.podRef.name}`, ws);
  }
  return { cpu: psiOf(s?.node?.['cpu']), memory: psiOf(s?.node?.['memory']), io: psiOf(s?.node?.['io']), podMemory };
}

/** nextHighSamples — consecutive readings above the threshold: +1 when memory `full avg10` is above it, else 0. */
export function nextHighSamples(previous: number, memory: PsiResource | null, threshold: number): number {
  return memory && memory.full.avg10 > threshold ? previous + 1 : 0;
}

export type ReliefDecision =
  | { readonly action: 'evict'; readonly pod: PodMemory; readonly excessBytes: number }
  | { readonly action: 'none'; readonly reason: 'NOT_OPTED_IN' | 'NOT_SUSTAINED' | 'RATE_LIMITED' | typeof PressureReliefOutcome.NO_CANDIDATE };

/**
 * decideRelief — early relief of a node under sustained memory pressure (docs/pressure.md), pure. Only nodes in
 * `relieve` mode, only after `sustainSamples` consecutive readings above the threshold, at most once per
 * `intervalMs`; the pod evicted is the one using most memory above its request, BestEffort pods before
 * Burstable ones, never a Guaranteed, DaemonSet or mirror pod, and never one using no more than it asked for.
 */
export function decideRelief(input: {
  mode: 'watch' | 'relieve';
  highSamples: number;
  sustainSamples: number;
  lastReliefAt: Date | null;
  now: Date;
  intervalMs: number;
  pods: readonly PodMemory[];
}): ReliefDecision {
  if (input.mode !== 'relieve') return { action: 'none', reason: 'NOT_OPTED_IN' };
  if (input.highSamples < input.sustainSamples) return { action: 'none', reason: 'NOT_SUSTAINED' };
  if (input.lastReliefAt && input.now.getTime() - input.lastReliefAt.getTime() < input.intervalMs) return { action: 'none', reason: 'RATE_LIMITED' };
  const rank = (p: PodMemory): number => (p.qosClass === 'BestEffort' ? 0 : 1);
  const candidates = input.pods
    .filter((p) => p.qosClass !== 'Guaranteed' && !p.daemonSet && !p.mirror && p.workingSetBytes > p.requestBytes)
    .sort((a, b) => rank(a) - rank(b) || b.workingSetBytes - b.requestBytes - (a.workingSetBytes - a.requestBytes) || `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  const pod = candidates[0];
  if (!pod) return { action: 'none', reason: PressureReliefOutcome.NO_CANDIDATE };
  return { action: 'evict', pod, excessBytes: pod.workingSetBytes - pod.requestBytes };
}

/**
 * holdForPressure — auto-uncordon's pressure safety: a verdict to uncordon a node whose memory `full avg10` is above
 * the threshold becomes `wait` with reason MEMORY_PRESSURE (re-evaluated after `requeueAfterMs`). Other verdicts, and
 * nodes without a PSI reading, pass unchanged.
 */
export function holdForPressure(v: UncordonVerdict, memory: PsiResource | null | undefined, threshold: number, requeueAfterMs: number): UncordonVerdict {
  if (v.decision !== 'uncordon' || !memory || memory.full.avg10 <= threshold) return v;
  return { ...v, decision: 'wait', reason: UncordonReason.MEMORY_PRESSURE, evidence: { ...v.evidence, memoryFullAvg10: memory.full.avg10 }, requeueAfterMs };
}
