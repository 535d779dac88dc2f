/**
 * @nodes-manager/kube — the one model of Kubernetes objects every service reads the cluster through: exact
 * quantities, GPU resources, capacity type, a pod's effective requests, taints and tolerations, conditions, owners,
 * provider ids. Pure: no I/O, no client, no clock (docs/kubernetes.md).
 */
export * from './quantity.js';
export * from './resources.js';
export * from './taints.js';
export * from './node.js';
export * from './pod.js';
export * from './api-verb.js';
