import { FencingReason, type FencingVerdict, type PartitionShare } from '@nodes-manager/contracts';
import { exceeds, limitWords, type PauseCheck, type TwoNumberLimit } from '@nodes-manager/disruption';

/**
 * FenceCandidate — what the fencing rule needs of one node that is not Ready (or of an opted-in Ready one, which
 * only counts towards the partition totals). `lease` is `undefined` when it was not read (a Ready node),
 * `null` when the node has no Lease in kube-node-lease.
 */
export interface FenceCandidate {
  readonly name: string;
  readonly uid: string;
  readonly zone: string | null;
  /** The node's pool (Karpenter NodePool or EKS node group), null when it has none. */
  readonly nodePool?: string | null;
  readonly optedIn: boolean;
  readonly instanceId: string | null;
  readonly ready: 'True' | 'False' | 'Unknown';
  readonly notReadySince: Date | null;
  readonly lease?: { readonly renewTime: Date | null; readonly durationSeconds: number } | null;
  /** A fence of this node object (uid) exists or runs already. */
  readonly alreadyFenced: boolean;
}

export interface FencingRuleConfig {
  readonly enabled: boolean;
  /** FENCING_LEASE_TIMEOUT_SECONDS: how long past the Lease's own duration a renewal may be missing. */
  readonly leaseTimeoutSeconds: number;
  /**
   * FENCING_MAX_UNHEALTHY_COUNT and FENCING_MAX_UNHEALTHY_PERCENT: fencing stops in a set of opted-in nodes (all of
   * them, a zone, a pool) when both are passed — more than this many and more than this share look dead at once.
   */
  readonly maxUnhealthy: TwoNumberLimit;
  /** The fleet-wide pause (docs/pause.md): when it holds `fence`, a FENCE verdict waits with reason PAUSED. */
  readonly pause: PauseCheck;
}

export interface FencingDecision {
  readonly verdicts: FencingVerdict[];
  /** The nodes to fence now (verdict `fence`). */
  readonly fence: readonly FenceCandidate[];
  readonly overall: PartitionShare;
  readonly zones: PartitionShare[];
  /** Per node pool (nodes without a pool are counted in the overall share and their zone only). */
  readonly pools: PartitionShare[];
  /** True when fencing is held back anywhere by a suspected partition. */
  readonly suspended: boolean;
  /** When a waiting verdict changes by itself (a Lease growing stale), in ms from now. */
  readonly requeueAfterMs?: number;
}

/** staleForMs — how long the Lease has gone unrenewed past its own duration; null when it never was renewed. */
const leaseDeadline = (lease: { renewTime: Date | null; durationSeconds: number }, timeoutSeconds: number): number | null =>
  lease.renewTime ? lease.renewTime.getTime() + (lease.durationSeconds + timeoutSeconds) * 1000 : null;

/**
 * looksDead — an opted-in node counts towards the partition share when it is not Ready, was not fenced already, and
 * its Lease is not fresh: the same evidence a fence needs, so a partition that stops every kubelet's renewals shows
 * up here.
 */
function looksDead(c: FenceCandidate, now: number, timeoutSeconds: number): boolean {
  // A node fenced already is dead for a known reason: it does not make a new outage look like a partition.
  if (!c.optedIn || c.ready === 'True' || c.alreadyFenced) return false;
  if (c.lease === undefined || c.lease === null) return c.lease === null;
  const deadline = leaseDeadline(c.lease, timeoutSeconds);
  return deadline === null || deadline <= now;
}

/**
 * share — dead-looking among opted-in nodes. Suspended when both limits are passed (more than the count and more than
 * the percentage) and at least two nodes look dead: one dead node is never a partition, however small its zone or
 * pool (docs/fencing.md#limits).
 */
function share(dead: number, total: number, limit: TwoNumberLimit, where: { zone?: string; nodePool?: string } = {}): PartitionShare {
  const percent = total === 0 ? 0 : Math.round((dead / total) * 10_000) / 100;
  return { ...where, dead, total, percent, suspended: dead >= 2 && exceeds(limit, dead, total) };
}

/** shareWords — why a share is suspended, in words. */
function shareWords(s: PartitionShare, limit: TwoNumberLimit): string {
  return `${s.dead} of ${s.total} opted-in nodes ${s.zone ? `in ${s.zone} ` : ''}${s.nodePool ? `of pool ${s.nodePool} ` : ''}look dead (${s.percent}%: ${limitWords(limit)})`;
}

/**
 * decideFencing — the fencing rule (docs/fencing.md), pure. For every node that is not Ready: fence only when it
 * opted in (label `nodes-manager/fencing: enabled`), has an EC2 instance, was never fenced, its Lease in
 * kube-node-lease has not been renewed for `leaseDurationSeconds + FENCING_LEASE_TIMEOUT_SECONDS`, and neither its
 * zone, nor its pool, nor the whole set of opted-in nodes looks partitioned (more than FENCING_MAX_UNHEALTHY_COUNT and
 * more than FENCING_MAX_UNHEALTHY_PERCENT dead at once, as EKS node repair stops), and the fleet is not paused
 * (docs/pause.md). Ready nodes get no verdict.
 */
export function decideFencing(candidates: readonly FenceCandidate[], now: Date, config: FencingRuleConfig): FencingDecision {
  const t = now.getTime();
  const opted = candidates.filter((c) => c.optedIn);
  const dead = opted.filter((c) => looksDead(c, t, config.leaseTimeoutSeconds));
  const limit = config.maxUnhealthy;
  const overall = share(dead.length, opted.length, limit);
  const zoneNames = [...new Set(opted.map((c) => c.zone ?? 'unknown'))].sort();
  const zones = zoneNames.map((z) =>
    share(
      dead.filter((c) => (c.zone ?? 'unknown') === z).length,
      opted.filter((c) => (c.zone ?? 'unknown') === z).length,
      limit,
      { zone: z },
    ),
  );
  const zoneSuspended = new Set(zones.filter((z) => z.suspended).map((z) => z.zone));
  const poolNames = [...new Set(opted.flatMap((c) => (c.nodePool ? [c.nodePool] : [])))].sort();
  const pools = poolNames.map((p) => share(dead.filter((c) => c.nodePool === p).length, opted.filter((c) => c.nodePool === p).length, limit, { nodePool: p }));
  const poolSuspended = new Set(pools.filter((p) => p.suspended).map((p) => p.nodePool));

  const verdicts: FencingVerdict[] = [];
  const fence: FenceCandidate[] = [];
  let requeueAfterMs: number | undefined;
  for (const c of candidates) {
    if (c.ready === 'True') continue;
    const renewed = c.lease?.renewTime ?? null;
    const base = {
      node: c.name,
      zone: c.zone,
      optedIn: c.optedIn,
      ready: c.ready,
      notReadySince: c.notReadySince?.toISOString() ?? null,
      leaseRenewedAt: renewed?.toISOString() ?? null,
      leaseStaleSeconds: renewed ? Math.max(0, Math.floor((t - renewed.getTime()) / 1000)) : null,
      evaluatedAt: now.toISOString(),
    };
    const verdict = (decision: FencingVerdict['decision'], reason: FencingReason, message: string): FencingVerdict => {
      const v = { ...base, decision, reason, message };
      verdicts.push(v);
      return v;
    };
    if (!c.optedIn) {
      verdict('skip', FencingReason.NOT_OPTED_IN, 'not labelled nodes-manager/fencing=enabled: never fenced');
      continue;
    }
    if (!config.enabled) {
      verdict('skip', FencingReason.DISABLED, 'fencing is switched off (FENCING_ENABLED=false)');
      continue;
    }
    if (c.alreadyFenced) {
      verdict('skip', FencingReason.ALREADY_FENCED, 'this node was fenced already (one fence per node, ever)');
      continue;
    }
    if (!c.instanceId) {
      verdict('skip', FencingReason.NO_INSTANCE_ID, 'the providerID names no EC2 instance, so nothing can prove it dead');
      continue;
    }
    if (c.lease === null || c.lease === undefined) {
      verdict('skip', FencingReason.LEASE_MISSING, 'no Lease in kube-node-lease: nothing proves the kubelet stopped');
      continue;
    }
    const deadline = leaseDeadline(c.lease, config.leaseTimeoutSeconds);
    if (deadline !== null && deadline > t) {
      const wait = deadline - t;
      requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
      verdict('wait', FencingReason.LEASE_FRESH, `the Lease was renewed ${base.leaseStaleSeconds}s ago; fenced if it stays unrenewed for ${Math.ceil(wait / 1000)}s more`);
      continue;
    }
    if (overall.suspended || zoneSuspended.has(c.zone ?? 'unknown') || (c.nodePool && poolSuspended.has(c.nodePool))) {
      const where = overall.suspended ? overall : (zones.find((z) => z.suspended && z.zone === (c.zone ?? 'unknown')) ?? pools.find((p) => p.nodePool === c.nodePool)!);
      verdict('skip', FencingReason.PARTITION_SUSPECTED, `${shareWords(where, limit)}: a control-plane or network fault is more likely than dead nodes`);
      continue;
    }
    if (!config.pause.go) {
      verdict('wait', FencingReason.PAUSED, `would be fenced, but ${config.pause.detail}`);
      continue;
    }
    verdict('fence', FencingReason.FENCE, `not Ready and its Lease unrenewed for ${base.leaseStaleSeconds ?? 'ever'}s (> lease duration + ${config.leaseTimeoutSeconds}s)`);
    fence.push(c);
  }
  return {
    verdicts,
    fence,
    overall,
    zones,
    pools,
    suspended: overall.suspended || zoneSuspended.size > 0 || poolSuspended.size > 0,
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  };
}

/** Ec2Observation — what one EC2 round of a fence saw: the instance's state, or the error code of the call. */
export type Ec2Observation = { readonly state: string } | { readonly errorCode: string; readonly message: string };

export type Ec2StepDecision =
  | { readonly next: 'confirmed'; readonly state: string }
  | { readonly next: 'poll' }
  | { readonly next: 'failed'; readonly reason: 'EC2_REFUSED' | 'EC2_NOT_CONFIRMED'; readonly message: string };

/** EC2 answers that will not change on a retry: the fence fails and the cluster is left as it is. */
const EC2_REFUSALS = new Set(['EC2_UNAUTHORIZED', 'AWS_NOT_CONFIGURED', 'VALIDATION_FAILED', 'CONFLICT', 'FORBIDDEN']);

/**
 * decideEc2Step — the fence's EC2 step, pure: `stopped` or `terminated` proves the node dead (confirmed; for a stop,
 * `terminated` proves it too); a refusal that a retry would not change (unauthorized, not configured, invalid) fails
 * the fence; anything else (pending states, throttling, spot-advisor away) polls again until the confirm deadline,
 * after which the fence fails with the last state seen. In both failures the cluster is not touched.
 */
export function decideEc2Step(seen: Ec2Observation, lastState: string | null, now: Date, deadline: Date, instanceId: string): Ec2StepDecision {
  if ('state' in seen && (seen.state === 'stopped' || seen.state === 'terminated')) return { next: 'confirmed', state: seen.state };
  if ('errorCode' in seen && EC2_REFUSALS.has(seen.errorCode)) {
    return { next: 'failed', reason: 'EC2_REFUSED', message: `EC2 refused to stop ${instanceId}: ${seen.message}; the cluster was not touched` };
  }
  if (now.getTime() >= deadline.getTime()) {
    const last = 'state' in seen ? seen.state : (lastState ?? 'unknown');
    return { next: 'failed', reason: 'EC2_NOT_CONFIRMED', message: `EC2 did not confirm ${instanceId} stopped or terminated in time (last state ${last}); the cluster was not touched` };
  }
  return { next: 'poll' };
}
