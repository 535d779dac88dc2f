/**
 * ResourceDef — one REST resource the simulator serves, with what discovery says about it and which
 * field selectors the API server supports for it.
 */
export interface ResourceDef {
  readonly group: string;
  readonly version: string;
  /** Versions also served for this resource (e.g. policy/v1beta1 for PDBs); same storage. */
  readonly alsoVersions?: readonly string[];
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames?: readonly string[];
  readonly verbs: readonly string[];
  readonly hasStatus: boolean;
  /** Field selector labels accepted besides metadata.name / metadata.namespace. */
  readonly fieldLabels: readonly string[];
  /** Extracts the selectable fields (and internal flags prefixed `~`) from an object. */
  readonly fields?: (obj: KubeObject) => Record<string, string>;
  /** Served only while the Karpenter CRDs are installed. */
  readonly karpenter?: boolean;
  readonly categories?: readonly string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KubeObject = Record<string, any>;

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

const podFields = (pod: KubeObject): Record<string, string> => {
  const ready = (pod.status?.conditions ?? []).some(
    (c: KubeObject) => c.type === 'Ready' && c.status === 'True',
  );
  return {
    'spec.nodeName': pod.spec?.nodeName ?? '',
    'spec.schedulerName': pod.spec?.schedulerName ?? '',
    'spec.serviceAccountName': pod.spec?.serviceAccountName ?? '',
    'spec.restartPolicy': pod.spec?.restartPolicy ?? '',
    'status.phase': pod.status?.phase ?? '',
    'status.podIP': pod.status?.podIP ?? '',
    'status.nominatedNodeName': pod.status?.nominatedNodeName ?? '',
    '~ready': ready ? 'true' : 'false',
    '~deleting': pod.metadata?.deletionTimestamp ? 'true' : 'false',
  };
};

export const RESOURCES: readonly ResourceDef[] = [
  {
    group: '', version: 'v1', plural: 'nodes', singular: 'node', kind: 'Node', namespaced: false,
    shortNames: ['no'], verbs: ALL_VERBS, hasStatus: true, fieldLabels: ['spec.unschedulable'],
    fields: (n) => ({ 'spec.unschedulable': n.spec?.unschedulable ? 'true' : 'false' }),
  },
  {
    group: '', version: 'v1', plural: 'pods', singular: 'pod', kind: 'Pod', namespaced: true, shortNames: ['po'],
    verbs: ALL_VERBS, hasStatus: true, categories: ['all'],
    fieldLabels: ['spec.nodeName', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.restartPolicy', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
    fields: podFields,
  },
  {
    group: '', version: 'v1', plural: 'namespaces', singular: 'namespace', kind: 'Namespace', namespaced: false,
    shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], hasStatus: true,
    fieldLabels: ['status.phase'], fields: (n) => ({ 'status.phase': n.status?.phase ?? '' }),
  },
  {
    group: '', version: 'v1', plural: 'events', singular: 'event', kind: 'Event', namespaced: true, shortNames: ['ev'],
    verbs: ALL_VERBS, hasStatus: false,
    fieldLabels: ['involvedObject.kind', 'involvedObject.name', 'involvedObject.namespace', 'involvedObject.uid', 'reason', 'source', 'type'],
    fields: (e) => ({
      'involvedObject.kind': e.involvedObject?.kind ?? '',
      'involvedObject.name': e.involvedObject?.name ?? '',
      'involvedObject.namespace': e.involvedObject?.namespace ?? '',
      'involvedObject.uid': e.involvedObject?.uid ?? '',
      reason: e.reason ?? '',
      source: e.source?.component ?? '',
      type: e.type ?? '',
    }),
  },
  {
    group: '', version: 'v1', plural: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim',
    namespaced: true, shortNames: ['pvc'], verbs: ALL_VERBS, hasStatus: true, fieldLabels: [],
  },
  {
    group: '', version: 'v1', plural: 'persistentvolumes', singular: 'persistentvolume', kind: 'PersistentVolume',
    namespaced: false, shortNames: ['pv'], verbs: ALL_VERBS, hasStatus: true, fieldLabels: [],
  },
  {
    group: 'policy', version: 'v1', alsoVersions: ['v1beta1'], plural: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'],
    verbs: ALL_VERBS, hasStatus: true, fieldLabels: [],
  },
  {
    group: 'coordination.k8s.io', version: 'v1', plural: 'leases', singular: 'lease', kind: 'Lease', namespaced: true,
    verbs: ALL_VERBS, hasStatus: false, fieldLabels: [],
  },
  ...(['deployments', 'replicasets', 'statefulsets', 'daemonsets'] as const).map((plural): ResourceDef => ({
    group: 'apps', version: 'v1', plural, singular: plural.slice(0, -1),
    kind: { deployments: 'Deployment', replicasets: 'ReplicaSet', statefulsets: 'StatefulSet', daemonsets: 'DaemonSet' }[plural],
    namespaced: true, verbs: ALL_VERBS, hasStatus: true, fieldLabels: [], categories: ['all'],
    shortNames: [{ deployments: 'deploy', replicasets: 'rs', statefulsets: 'sts', daemonsets: 'ds' }[plural]],
  })),
  ...(['jobs', 'cronjobs'] as const).map((plural): ResourceDef => ({
    group: 'batch', version: 'v1', plural, singular: plural.slice(0, -1), kind: plural === 'jobs' ? 'Job' : 'CronJob',
    namespaced: true, verbs: ALL_VERBS, hasStatus: true, fieldLabels: [], categories: ['all'],
    ...(plural === 'cronjobs' ? { shortNames: ['cj'] } : {}),
  })),
  {
    group: 'karpenter.sh', version: 'v1', plural: 'nodepools', singular: 'nodepool', kind: 'NodePool',
    namespaced: false, verbs: ALL_VERBS, hasStatus: true, fieldLabels: [], karpenter: true, categories: ['karpenter'],
  },
  {
    group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', singular: 'nodeclaim', kind: 'NodeClaim',
    namespaced: false, verbs: ALL_VERBS, hasStatus: true, fieldLabels: [], karpenter: true, categories: ['karpenter'],
  },
];

/** apiVersionOf — `v1` for core, `group/version` otherwise. */
export const apiVersionOf = (group: string, version: string): string => (group ? `${group}/${version}` : version);

export const resourceId = (def: Pick<ResourceDef, 'group' | 'plural'>): string => `${def.group}/${def.plural}`;

export function findResource(group: string, version: string, plural: string): ResourceDef | undefined {
  return RESOURCES.find(
    (r) => r.group === group && r.plural === plural && (r.version === version || r.alsoVersions?.includes(version)),
  );
}

export function byId(id: string): ResourceDef {
  const def = RESOURCES.find((r) => resourceId(r) === id);
  if (!def) throw new Error(`unknown resource ${id}`);
  return def;
}

/** groupVersions — every group/version served right now (Karpenter's only while installed). */
export function groupVersions(karpenter: boolean): { group: string; versions: string[] }[] {
  const out = new Map<string, Set<string>>();
  for (const r of RESOURCES) {
    if (!r.group || (r.karpenter && !karpenter)) continue;
    const set = out.get(r.group) ?? new Set<string>();
    set.add(r.version);
    for (const v of r.alsoVersions ?? []) set.add(v);
    out.set(r.group, set);
  }
  return [...out].map(([group, versions]) => ({ group, versions: [...versions] }));
}

/** apiResourceList — the discovery document for one group/version, subresources included. */
export function apiResourceList(group: string, version: string, karpenter: boolean): KubeObject | undefined {
  const defs = RESOURCES.filter(
    (r) => r.group === group && (r.version === version || r.alsoVersions?.includes(version)) && (!r.karpenter || karpenter),
  );
  if (defs.length === 0) return undefined;
  const resources: KubeObject[] = [];
  for (const r of defs) {
    resources.push({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      ...(r.categories ? { categories: r.categories } : {}),
      storageVersionHash: Buffer.from(`${r.group}/${r.plural}`).toString('base64').slice(0, 11),
    });
    if (r.hasStatus) {
      resources.push({ name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] });
    }
    if (r.plural === 'pods') {
      resources.push({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources };
}

/** apiGroupList — the `/apis` document. */
export function apiGroupList(karpenter: boolean): KubeObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groupVersions(karpenter).map(({ group, versions }) => ({
      name: group,
      versions: versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${group}/${versions[0]}`, version: versions[0] },
    })),
  };
}
