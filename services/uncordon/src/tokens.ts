/** Injection tokens of the uncordon service (kept apart from the module so providers never import it). */
export const UNCORDON_CONFIG = Symbol('UNCORDON_CONFIG');
export const KUBE_NODES = Symbol('KUBE_NODES');
export const NODE_SOURCE = Symbol('NODE_SOURCE');
export const UNCORDON_REPOSITORY = Symbol('UNCORDON_REPOSITORY');
export const DRAIN_REPOSITORY = Symbol('DRAIN_REPOSITORY');
/** The one leader election of the service: only its leader uncordons and runs drains. */
export const UNCORDON_LEADER = Symbol('UNCORDON_LEADER');
export const KUBE_FENCING = Symbol('KUBE_FENCING');
export const FENCING_REPOSITORY = Symbol('FENCING_REPOSITORY');
export const PRESSURE_REPOSITORY = Symbol('PRESSURE_REPOSITORY');
export const REBALANCE_REPOSITORY = Symbol('REBALANCE_REPOSITORY');
export const NODE_EVENTS = Symbol('NODE_EVENTS');
export const INSTANCE_STATES = Symbol('INSTANCE_STATES');
/** The approvals of fences (`fence`) and the records of manual drains (`drain`), and both together for the commands. */
export const FENCE_APPROVALS = Symbol('FENCE_APPROVALS');
export const DRAIN_APPROVALS = Symbol('DRAIN_APPROVALS');
export const UNCORDON_APPROVALS = Symbol('UNCORDON_APPROVALS');
/** The fleet-wide pause's table (docs/pause.md): uncordon keeps it. */
export const PAUSE_REPOSITORY = Symbol('PAUSE_REPOSITORY');
/** The Spot interruptions' repository (`nodes.spot_interruptions`): SpotInterruptionsRepository. */
export const SPOT_INTERRUPTIONS = Symbol('SPOT_INTERRUPTIONS');
/** Node-hours per pool, asked of node-sync: NodeHours. */
export const NODE_HOURS = Symbol('NODE_HOURS');
