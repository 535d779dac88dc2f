/** Taints and tolerations with Kubernetes' matching rules (`Toleration.ToleratesTaint`). */

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
export const TAINT_EFFECTS: readonly TaintEffect[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: TaintEffect;
}

/** Toleration — operator defaults to `Equal`; an empty key with `Exists` tolerates every taint; no effect matches every effect. */
export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: TaintEffect;
}

/** The taint kube-scheduler reads a cordon as (NodeUnschedulable plugin). */
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

const isEffect = (e: unknown): e is TaintEffect => TAINT_EFFECTS.includes(e as TaintEffect);

/** taintOf — a raw taint, or undefined when it has no key or an effect Kubernetes does not define. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function taintOf(raw: any): Taint | undefined {
  if (typeof raw?.key !== 'string' || !isEffect(raw.effect)) return undefined;
  return { key: raw.key, ...(raw.value !== undefined && raw.value !== null && raw.value !== '' ? { value: String(raw.value) } : {}), effect: raw.effect };
}

/** tolerationOf — a raw toleration; unknown operators and effects are dropped (so they widen nothing). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function tolerationOf(raw: any): Toleration {
  // Built field by field, in this order: called for every toleration of every pod listed (a million pods at 100,000
  // nodes), where spreading a small object per field cost 2 µs a call.
  const t: { key?: string; operator?: 'Exists' | 'Equal'; value?: string; effect?: TaintEffect } = {};
  if (raw?.key) t.key = String(raw.key);
  if (raw?.operator === 'Exists' || raw?.operator === 'Equal') t.operator = raw.operator;
  if (raw?.value !== undefined && raw?.value !== null) t.value = String(raw.value);
  if (isEffect(raw?.effect)) t.effect = raw.effect;
  return t;
}

/** tolerates — one toleration matches one taint. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== taint.effect) return false;
  const key = t.key ?? '';
  if (key === '') return t.operator === 'Exists';
  if (key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}
