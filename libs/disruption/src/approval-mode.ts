import { DisruptionKinds, type DisruptionKind } from '@nodes-manager/contracts';

/** How each disruptive action kind (libs/contracts `DisruptionKinds`) is approved; see docs/approvals.md. */
export const ApprovalModes = ['automatic', 'manual'] as const;
export type ApprovalMode = (typeof ApprovalModes)[number];

export interface ApprovalPolicy {
  readonly default: ApprovalMode;
  readonly byKind: Readonly<Partial<Record<DisruptionKind, ApprovalMode>>>;
}

/** approvalModeFor — the mode of one kind: its own setting, else the default. */
export const approvalModeFor = (p: ApprovalPolicy, kind: DisruptionKind): ApprovalMode => p.byKind[kind] ?? p.default;

const isMode = (s: string): s is ApprovalMode => (ApprovalModes as readonly string[]).includes(s);
const isKind = (s: string): s is DisruptionKind => (DisruptionKinds as readonly string[]).includes(s);

/**
 * parseApprovalPolicy — DISRUPTION_APPROVAL: a mode for every kind (`manual`), or a comma list of `kind=mode` with an
 * optional bare mode as the default (`automatic,optimize=manual`). Empty means `automatic` for all.
 */
export function parseApprovalPolicy(raw: string | undefined): { ok: true; policy: ApprovalPolicy } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  let dflt: ApprovalMode | undefined;
  const byKind: Partial<Record<DisruptionKind, ApprovalMode>> = {};
  for (const item of (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const [k, v, extra] = item.split('=').map((s) => s.trim());
    if (v === undefined) {
      if (!isMode(k!)) problems.push(`"${k}" is neither automatic nor manual`);
      else if (dflt !== undefined) problems.push(`the default mode is given twice`);
      else dflt = k;
      continue;
    }
    if (extra !== undefined || !isKind(k!)) problems.push(`"${item}": the kind must be one of ${DisruptionKinds.join(', ')}`);
    else if (!isMode(v)) problems.push(`"${item}": the mode must be automatic or manual`);
    else if (byKind[k] !== undefined) problems.push(`${k} is given twice`);
    else byKind[k] = v;
  }
  return problems.length ? { ok: false, problems } : { ok: true, policy: { default: dflt ?? 'automatic', byKind } };
}
