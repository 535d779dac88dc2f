/** Injection tokens of scheduler-scoring's ports. */
export const SCHEDULER_SCORING_CONFIG = Symbol('SCHEDULER_SCORING_CONFIG');
export const CLUSTER_CACHE = Symbol('CLUSTER_CACHE');
export const PRICE_SOURCE = Symbol('PRICE_SOURCE');
export const CATALOG_SOURCE = Symbol('CATALOG_SOURCE');
export const DRAINER = Symbol('DRAINER');
export const SCHEDULING_REPOSITORY = Symbol('SCHEDULING_REPOSITORY');
export const SCHEDULER_LEADER = Symbol('SCHEDULER_LEADER');
export const OPTIMIZE_APPROVALS_STORE = Symbol('OPTIMIZE_APPROVALS_STORE');
/** The service's approvals (one store: `optimize`), for the shared approval commands. */
export const SCHEDULER_APPROVALS = Symbol('SCHEDULER_APPROVALS');
/** Events on Nodes (the plan's PDB-blocked nodes): KubeNodeEvents. */
export const NODE_EVENTS = Symbol('NODE_EVENTS');
