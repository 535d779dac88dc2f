import { read } from './source-graph.js';

/** ApiAccess — one (API group, resource, verb) a service needs; `namespace` when the call names one literally. */
export interface ApiAccess {
  group: string;
  resource: string;
  verb: string;
  namespace?: string;
  /** Where it was found: `file: client.method` or `file: 'path'`. */
  source: string;
}

type Rule = { group: string; resource: string; verb: string } | 'discovery' | 'custom';

const core = (resource: string, verb: string): Rule => ({ group: '', resource, verb });

/**
 * CLIENT_METHODS — @kubernetes/client-node API class → method → what RBAC it needs. `custom`: group and resource come
 * from the call's `group` / `plural` arguments; `discovery`: served to every authenticated user by the built-in
 * `system:discovery` ClusterRole (no rule). A method missing here fails the RBAC test: add its row.
 */
export const CLIENT_METHODS: Record<string, Record<string, Rule>> = {
  CoreV1Api: {
    listNode: core('nodes', 'list'),
    readNode: core('nodes', 'get'),
    patchNode: core('nodes', 'patch'),
    replaceNode: core('nodes', 'update'),
    deleteNode: core('nodes', 'delete'),
    readNodeStatus: core('nodes/status', 'get'),
    patchNodeStatus: core('nodes/status', 'patch'),
    listPodForAllNamespaces: core('pods', 'list'),
    listNamespacedPod: core('pods', 'list'),
    readNamespacedPod: core('pods', 'get'),
    createNamespacedPod: core('pods', 'create'),
    patchNamespacedPod: core('pods', 'patch'),
    deleteNamespacedPod: core('pods', 'delete'),
    createNamespacedPodEviction: core('pods/eviction', 'create'),
    createNamespacedEvent: core('events', 'create'),
    patchNamespacedEvent: core('events', 'patch'),
    replaceNamespacedEvent: core('events', 'update'),
    listNamespacedEvent: core('events', 'list'),
    listEventForAllNamespaces: core('events', 'list'),
    listNamespace: core('namespaces', 'list'),
    readNamespace: core('namespaces', 'get'),
    listPersistentVolumeClaimForAllNamespaces: core('persistentvolumeclaims', 'list'),
    listPersistentVolume: core('persistentvolumes', 'list'),
    getAPIResources: 'discovery',
  },
  PolicyV1Api: {
    listPodDisruptionBudgetForAllNamespaces: { group: 'policy', resource: 'poddisruptionbudgets', verb: 'list' },
    listNamespacedPodDisruptionBudget: { group: 'policy', resource: 'poddisruptionbudgets', verb: 'list' },
    readNamespacedPodDisruptionBudget: { group: 'policy', resource: 'poddisruptionbudgets', verb: 'get' },
    getAPIResources: 'discovery',
  },
  CoordinationV1Api: {
    readNamespacedLease: { group: 'coordination.k8s.io', resource: 'leases', verb: 'get' },
    createNamespacedLease: { group: 'coordination.k8s.io', resource: 'leases', verb: 'create' },
    replaceNamespacedLease: { group: 'coordination.k8s.io', resource: 'leases', verb: 'update' },
    patchNamespacedLease: { group: 'coordination.k8s.io', resource: 'leases', verb: 'patch' },
    deleteNamespacedLease: { group: 'coordination.k8s.io', resource: 'leases', verb: 'delete' },
  },
  EventsV1Api: {
    createNamespacedEvent: { group: 'events.k8s.io', resource: 'events', verb: 'create' },
    patchNamespacedEvent: { group: 'events.k8s.io', resource: 'events', verb: 'patch' },
  },
  CustomObjectsApi: {
    listClusterCustomObject: 'custom',
    getClusterCustomObject: 'custom',
    createClusterCustomObject: 'custom',
    patchClusterCustomObject: 'custom',
    replaceClusterCustomObject: 'custom',
    deleteClusterCustomObject: 'custom',
    listNamespacedCustomObject: 'custom',
    getNamespacedCustomObject: 'custom',
    createNamespacedCustomObject: 'custom',
    patchNamespacedCustomObject: 'custom',
    replaceNamespacedCustomObject: 'custom',
    deleteNamespacedCustomObject: 'custom',
    listCustomObjectForAllNamespaces: 'custom',
    getAPIResources: 'discovery',
  },
};

/** CUSTOM_VERB — the verb of a CustomObjectsApi method, from its name. */
const customVerb = (method: string): string => {
  const m = /^(list|get|create|patch|replace|delete)/.exec(method);
  if (!m) throw new Error(`no verb in ${method}`);
  return m[1] === 'replace' ? 'update' : m[1]!;
};

/** stripComments — the source without comments, string and template literals kept as they are. */
export function stripComments(text: string): string {
  let out = '';
  let i = 0;
  let quote: string | undefined;
  while (i < text.length) {
    const c = text[i]!;
    const n = text[i + 1];
    if (quote) {
      out += c;
      if (c === '\\') {
        out += n ?? '';
        i += 2;
        continue;
      }
      if (c === quote) quote = undefined;
      i++;
      continue;
    }
    if (c === '/' && n === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && n === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    out += c;
    i++;
  }
  return out;
}

/** callArgs — the text between the parenthesis at `open` and its match. */
function callArgs(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

export interface DerivedAccess {
  needs: ApiAccess[];
  /** Calls on a Kubernetes API client that CLIENT_METHODS does not know (the test fails on them). */
  unknown: string[];
  /** Custom-object calls whose group or plural could not be resolved to a literal. */
  unresolved: string[];
}

/** A node proxy path built in a template (`/api/v1/nodes/${name}/proxy/stats/summary`): `get` on nodes/proxy. */
const NODE_PROXY_RE = /\/api\/v1\/nodes\/\$\{[^}]+\}\/proxy\//g;

const PATH_RE = /['"`](\/api\/v1(?:\/namespaces\/([a-z0-9-]+))?\/([a-z]+)|\/apis\/([a-z0-9.-]+)\/(v[0-9a-z]+)(?:\/namespaces\/([a-z0-9-]+))?\/([a-z]+))['"`]/g;

/**
 * deriveAccess — what the given source files ask of the API server: every call on a Kubernetes API client
 * (receivers assigned `makeApiClient(k8s.X)` or typed `k8s.X`), every collection path literal (`'/api/v1/nodes'`,
 * `'/apis/policy/v1/poddisruptionbudgets'`) — read by an informer or a list-then-watch, so `list` and `watch` — and
 * every node proxy path (`get` on nodes/proxy, the kubelet's Summary API).
 */
export function deriveAccess(files: Map<string, string> | string[]): DerivedAccess {
  const sources = Array.isArray(files) ? new Map(files.map((f) => [f, read(f)])) : files;
  const texts = new Map([...sources].map(([f, t]) => [f, stripComments(t)]));
  const receivers = new Map<string, string>();
  const strings = new Map<string, string>();
  const objects = new Map<string, string>();
  for (const t of texts.values()) {
    for (const m of t.matchAll(/(\w+)\s*=\s*[\w.]+\.makeApiClient\(\s*(?:k8s\.)?(\w+)\s*\)/g)) receivers.set(m[1]!, m[2]!);
    for (const m of t.matchAll(/(\w+)\s*[?!]?\s*:\s*(?:k8s\.)?(\w+Api)\b/g)) if (CLIENT_METHODS[m[2]!] || /^[A-Z]\w*V\d\w*Api$/.test(m[2]!)) receivers.set(m[1]!, m[2]!);
    for (const m of t.matchAll(/const\s+(\w+)\s*=\s*'([^']*)'/g)) strings.set(m[1]!, m[2]!);
    for (const m of t.matchAll(/const\s+(\w+)\s*=\s*\{([^{}]*)\}/g)) objects.set(m[1]!, m[2]!);
  }
  const needs: ApiAccess[] = [];
  const unknown: string[] = [];
  const unresolved: string[] = [];
  const field = (args: string, name: string): string | undefined => {
    const direct = new RegExp(`\\b${name}\\s*:\\s*(?:'([^']*)'|(\\w+))`).exec(args);
    if (direct) return direct[1] ?? strings.get(direct[2]!);
    for (const s of args.matchAll(/\.\.\.(\w+)/g)) {
      const body = objects.get(s[1]!);
      if (body) {
        const v = field(body, name);
        if (v !== undefined) return v;
      }
    }
    return undefined;
  };
  for (const [file, t] of texts) {
    for (const [recv, api] of receivers) {
      for (const m of t.matchAll(new RegExp(`\\b${recv}\\.(\\w+)\\s*\\(`, 'g'))) {
        const method = m[1]!;
        const rule = CLIENT_METHODS[api]?.[method];
        const source = `${file}: ${api}.${method}`;
        if (!rule) {
          unknown.push(source);
          continue;
        }
        if (rule === 'discovery') continue;
        const args = callArgs(t, m.index! + m[0].length - 1);
        const ns = /\bnamespace\s*:\s*'([^']+)'/.exec(args)?.[1];
        if (rule === 'custom') {
          const group = field(args, 'group');
          const plural = field(args, 'plural');
          if (group === undefined || plural === undefined) unresolved.push(source);
          else needs.push({ group, resource: plural, verb: customVerb(method), ...(ns ? { namespace: ns } : {}), source });
        } else {
          needs.push({ ...rule, ...(ns ? { namespace: ns } : {}), source });
        }
      }
    }
    for (const m of t.matchAll(PATH_RE)) {
      const group = m[4] ?? '';
      const resource = m[3] ?? m[7]!;
      const ns = m[2] ?? m[6];
      for (const verb of ['list', 'watch']) needs.push({ group, resource, verb, ...(ns ? { namespace: ns } : {}), source: `${file}: '${m[1]}'` });
    }
    for (const m of t.matchAll(NODE_PROXY_RE)) needs.push({ group: '', resource: 'nodes/proxy', verb: 'get', source: `${file}: '${m[0]}'` });
  }
  return { needs, unknown, unresolved };
}
