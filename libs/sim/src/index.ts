export {};
export * from './ec2/index.js';
export * from './kube/kube-sim.js';
export type { Fleet } from './fleet/fleet.types.js';
export { ApiError } from './kube/errors.js';
export type { ManagedFieldsEntry } from './kube/managed-fields.js';
export { ANCIENT_CHANGES, MAX_UPDATE_MANAGERS } from './kube/managed-fields.js';
export { NODE_UNSCHEDULABLE_TAINT, CONTROLLER_MANAGER } from './kube/api.js';
export type { Faults, Stats } from './kube/server.js';
