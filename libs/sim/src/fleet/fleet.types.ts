import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';

/**
 * Fleet — a generated cluster: nodes, their pods, budgets, the StatefulSet pods' volumes, Karpenter objects and the controllers that own
 * the pods (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs) so that tools which look
 * owners up (kubectl drain checks DaemonSets) find them.
 */
export interface Fleet {
  nodes: V1Node[];
  pods: V1Pod[];
  pdbs: V1PodDisruptionBudget[];
  /** The StatefulSet pods' claims, each bound (`spec.volumeName`) to a PersistentVolume below. */
  persistentVolumeClaims: object[];
  /** Zonal volumes as the EBS CSI driver provisions them: node affinity and label on the zone of the pod's node. */
  persistentVolumes: object[];
  nodePools: object[];
  nodeClaims: object[];
  workloads: object[];
  namespaces: string[];
}
