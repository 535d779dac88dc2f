import type { KubeObject, ResourceDef } from './resources.js';
import type { Entry } from './store.js';

/** wantsTable — kubectl asks for server-side printing with `Accept: application/json;as=Table;...`. */
export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

/** humanAge — kubectl's short age: 45s, 12m, 5h, 3d, 2y. */
export function humanAge(from: string | undefined, now: Date): string {
  if (!from) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(from)) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  return d < 730 ? `${d}d` : `${Math.floor(d / 365)}y`;
}

interface Column {
  name: string;
  type: string;
  format?: string;
  description: string;
  priority: number;
  cell: (o: KubeObject, now: Date) => unknown;
}

const age: Column = { name: 'Age', type: 'string', description: 'Age', priority: 0, cell: (o, now) => humanAge(o.metadata?.creationTimestamp, now) };
const name: Column = { name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0, cell: (o) => o.metadata?.name };

const nodeStatus = (n: KubeObject): string => {
  const ready = (n.status?.conditions ?? []).find((c: KubeObject) => c.type === 'Ready');
  const parts = [ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown'];
  if (n.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
};
const nodeRoles = (n: KubeObject): string => {
  const roles = Object.keys(n.metadata?.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  return roles.length ? roles.join(',') : '<none>';
};
const podReady = (p: KubeObject): string => {
  const total = (p.spec?.containers ?? []).length;
  const ready = (p.status?.containerStatuses ?? []).filter((c: KubeObject) => c.ready).length;
  return `${ready}/${total}`;
};
const podStatus = (p: KubeObject): string => (p.metadata?.deletionTimestamp ? 'Terminating' : (p.status?.phase ?? 'Unknown'));

const COLUMNS: Record<string, Column[]> = {
  nodes: [
    name,
    { name: 'Status', type: 'string', description: 'The status of the node', priority: 0, cell: nodeStatus },
    { name: 'Roles', type: 'string', description: 'The roles of the node', priority: 0, cell: nodeRoles },
    age,
    { name: 'Version', type: 'string', description: 'Kubelet Version', priority: 0, cell: (n) => n.status?.nodeInfo?.kubeletVersion ?? '' },
    { name: 'Internal-IP', type: 'string', description: 'Internal IP', priority: 1, cell: (n) => (n.status?.addresses ?? []).find((a: KubeObject) => a.type === 'InternalIP')?.address ?? '<none>' },
  ],
  pods: [
    name,
    { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', priority: 0, cell: podReady },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', priority: 0, cell: podStatus },
    { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted.', priority: 0, cell: (p) => String((p.status?.containerStatuses ?? []).reduce((s: number, c: KubeObject) => s + (c.restartCount ?? 0), 0)) },
    age,
    { name: 'IP', type: 'string', description: 'IP address', priority: 1, cell: (p) => p.status?.podIP ?? '<none>' },
    { name: 'Node', type: 'string', description: 'Node name', priority: 1, cell: (p) => p.spec?.nodeName ?? '<none>' },
  ],
};

/** tableFor — a meta.k8s.io/v1 Table for kubectl's printers (rows carry PartialObjectMetadata or the object). */
export function tableFor(def: ResourceDef, entries: readonly Entry[], listMeta: Record<string, unknown>, now: Date, includeObject: string): KubeObject {
  const cols = COLUMNS[def.plural] ?? [name, age];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: cols.map(({ cell: _c, ...c }) => c),
    rows: entries.map((e) => {
      const o = JSON.parse(e.json) as KubeObject;
      const object = includeObject === 'Object'
        ? o
        : includeObject === 'None'
          ? undefined
          : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
      return { cells: cols.map((c) => c.cell(o, now)), ...(object ? { object } : {}) };
    }),
  };
}
