/** Formatting shared by the views: money, durations, times, and auto-uncordon reasons in plain words. */
export const usd = (v: number | undefined | null, digits = 2): string => (v === undefined || v === null || Number.isNaN(v) ? '—' : `$${v.toFixed(digits)}`);
export const pct = (v: number | undefined | null, digits = 0): string => (v === undefined || v === null ? '—' : `${(v * 100).toFixed(digits)}%`);

export const round = (v: number, digits = 0): string => (Number.isFinite(v) ? v.toLocaleString([], { maximumFractionDigits: digits, minimumFractionDigits: 0 }) : '—');
export const count = (v: number): string => v.toLocaleString();
/** minutes — a lead time in minutes as a duration (`42 m 30 s`, `1 h 05 m`). */
export const minutes = (m: number | null | undefined): string => (m === null || m === undefined ? '—' : duration(m * 60_000));

/** duration — `1 h 05 m`, `4 m 12 s`, `9 s`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} m`;
  if (m > 0) return `${m} m ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}

export const ago = (iso: string | undefined | null, now: number): string => (iso ? `${duration(now - Date.parse(iso))} ago` : '—');
export const clock = (iso: string | undefined | null): string => (iso ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '—');
export const dateTime = (iso: string | undefined | null): string => (iso ? new Date(iso).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '—');

export const gib = (bytes: number | undefined): string => (bytes === undefined ? '—' : `${(bytes / 2 ** 30).toFixed(bytes >= 10 * 2 ** 30 ? 0 : 1)} GiB`);
export const cores = (milli: number | undefined): string => (milli === undefined ? '—' : `${(milli / 1000).toFixed(milli >= 10_000 ? 0 : 1)}`);

/** REASON_WORDS — each auto-uncordon reason (docs/auto-uncordon.md) as an operator would say it. */
export const REASON_WORDS: Record<string, string> = {
  UNCORDON: 'A Spot rebalance cordon, Ready all along: nodes-manager uncordons it on the next cycle.',
  WAITING_GRACE_PERIOD: 'A Spot rebalance cordon by NTH: waiting out the grace period before uncordoning.',
  NOT_CORDONED: 'Not cordoned.',
  CORDON_TAINT_MISSING: 'Cordoned, but the unschedulable taint is not there yet.',
  EXTRA_TAINTS: 'Has other taints besides the cordon: left alone.',
  CORDONED_BY_OTHER_MANAGER: 'Cordoned by someone else (not NTH): never touched.',
  NO_PROVENANCE: 'Nothing shows who cordoned it: left alone.',
  KARPENTER_DISRUPTION_TAINT: 'Karpenter is disrupting this node: left alone.',
  CLUSTER_AUTOSCALER_DELETION_TAINT: 'The cluster autoscaler is deleting this node: left alone.',
  BEING_DELETED: 'The node is being deleted.',
  EXCLUDED_FROM_LOAD_BALANCERS: 'Excluded from load balancers: a sign of an interruption, left alone.',
  NTH_ACTION_LABEL: 'NTH is acting on an interruption here: left alone.',
  OPTED_OUT: 'Opted out of auto-uncordon by annotation.',
  CORDON_TIME_UNKNOWN: 'When it was cordoned is not known yet: waiting for evidence.',
  NOT_READY: 'Not Ready now: stays cordoned.',
  NOT_READY_SINCE_CORDON: 'Was not Ready throughout since the cordon: stays cordoned.',
  BUDGET_EXHAUSTED: 'Would be uncordoned, but this cycle’s budget is used up: next cycle.',
  DISABLED: 'Would be uncordoned, but auto-uncordon is disabled.',
  DRY_RUN: 'Would be uncordoned, but auto-uncordon runs in dry-run mode.',
  DRAINING: 'A nodes-manager drain runs on it: the cordon is ours.',
  MEMORY_PRESSURE: 'Would be uncordoned, but its memory is under pressure: waits until it eases.',
  PAUSED: 'Would be uncordoned, but a fleet-wide pause holds auto-uncordon too: after the pause.',
};

export const reasonWords = (reason: string | undefined, description?: string): string => (reason && REASON_WORDS[reason]) || description || reason || '—';

/** EVENT_WORDS — a CloudEvent type in words, for the activity timeline. */
export const EVENT_WORDS: Record<string, string> = {
  'node.uncordoned': 'Uncordoned',
  'pool.health.changed': 'Spot pool health changed',
  'nodepool.steered': 'NodePool steered',
  'node.drain.started': 'Drain started',
  'node.drain.completed': 'Drain completed',
  'node.drain.failed': 'Drain failed',
  'optimize.planned': 'Consolidation planned',
  'optimize.executed': 'Consolidation executed',
  'nodepool.created': 'NodePool created',
  'nodepool.updated': 'NodePool changed',
  'nodepool.deleted': 'NodePool deleted',
  'nodepool.consolidation.requested': 'NodePool consolidation',
  'instance.provisioned': 'Instances launched',
  'node.added': 'Node joined',
  'node.removed': 'Node left',
  'disruptions.paused': 'Disruptive actions paused',
  'disruptions.resumed': 'Disruptive actions resumed',
};

/** BASIS_WORDS — where an interruption estimate comes from (docs/spot-interruption-estimate.md), in words. */
export const BASIS_WORDS: Record<string, string> = {
  'insufficient-data': 'too little price history',
  'price-volatility': 'from price movement',
  'price-volatility+spot-advisor-snapshot': 'from price and Spot Advisor',
  'measured-in-this-cluster': 'measured in this cluster',
};

/** PLAN_REASON_WORDS — why the consolidation plan removes or keeps a node (libs/scoring consolidation), in words. */
export const PLAN_REASON_WORDS: Record<string, string> = {
  empty: 'empty',
  underutilized: 'under-used',
  node_do_not_disrupt: 'the node is marked do-not-disrupt',
  pod_without_controller: 'a pod no controller would recreate',
  pod_with_local_storage: 'a pod on local storage',
  pod_do_not_disrupt: 'a pod marked do-not-disrupt',
  pod_not_safe_to_evict: 'a pod not safe to evict',
  pdb_exhausted: 'its PodDisruptionBudget allows no more disruptions',
  node_receives_pods: 'it takes the moved pods',
  pods_do_not_fit: 'its pods fit nowhere else',
};

/** words — a reason code in words from a table; an unknown code at least loses its underscores. */
export const words = (table: Record<string, string>, code: string | undefined | null): string => (code ? (table[code] ?? code.replace(/_/g, ' ')) : '—');
