export const NODE_SYNC_CONFIG = Symbol('NODE_SYNC_CONFIG');
export const KUBE_CACHE = Symbol('KUBE_CACHE');
export const NODE_SYNC_REPOSITORY = Symbol('NODE_SYNC_REPOSITORY');
export const NODE_SYNC_LEADER = Symbol('NODE_SYNC_LEADER');
