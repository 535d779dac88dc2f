import { apiVerb } from '@nodes-manager/kube';

/**
 * RBAC as kube-apiserver enforces it (docs/deploy.md, "Least privilege, proven"): request attributes derived from the
 * method and path the way the API server's RequestInfoFactory derives them, and the RBAC authorizer's rule matching
 * (apiGroups, resources with subresources, verbs, resourceNames; ClusterRoleBindings everywhere, RoleBindings in their
 * namespace only; ServiceAccount, User and Group subjects). Pure: no I/O, no clock.
 *
 * Besides allowing or denying, {@link RbacPolicy.authorize} names every grant that allows a request — a grant is one
 * (role, rule, apiGroup, resource, verb) of the policy — so a test can show which grant each request needed.
 */

/** UserInfo — an authenticated identity: `system:serviceaccount:<ns>:<name>` and its groups for a ServiceAccount. */
export interface UserInfo {
  name: string;
  groups: readonly string[];
}

/** RequestAttributes — what the authorizer decides on (kube-apiserver's authorizer.Attributes). */
export interface RequestAttributes {
  resourceRequest: boolean;
  /** The URL path (non-resource requests are authorized on it). */
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection — or the lower-case method for a non-resource path. */
  verb: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** Grant — one verb on one resource of one group, by one rule of one role, bound by one binding. */
export interface Grant {
  /** `ClusterRole/<name>` or `Role/<namespace>/<name>`. */
  role: string;
  /** `ClusterRoleBinding/<name>` or `RoleBinding/<namespace>/<name>`. */
  binding: string;
  /** The rule's index in the role's `rules`. */
  rule: number;
  apiGroup: string;
  /** As written in the rule: `pods`, `pods/eviction`, `*`. */
  resource: string;
  verb: string;
  /** The namespace a RoleBinding confines the grant to; undefined for a ClusterRoleBinding. */
  namespace?: string;
  resourceNames?: readonly string[];
  nonResourceURL?: string;
}

export interface Decision {
  allowed: boolean;
  /** Every grant that allows the request (empty when denied, or when allowed as a superuser). */
  grants: Grant[];
  /** Allowed by a rule built into every API server (discovery, health) rather than by the loaded policy. */
  builtIn?: string;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface RbacObject {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: PolicyRule[];
  roleRef?: { kind?: string; name?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[];
  aggregationRule?: unknown;
}

/** Every authenticated user may read discovery and health (the bootstrap roles system:discovery and system:public-info-viewer). */
const DISCOVERY_PATHS = ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/readyz', '/version', '/version/', '/openapi', '/openapi/*'];
const PUBLIC_PATHS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
const MASTERS = 'system:masters';

/** serviceAccountUser — how the API server names a ServiceAccount's token holder. */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { name: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
}

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

const splitPath = (p: string): string[] => p.replace(/^\/+|\/+$/g, '').split('/').filter((s) => s.length > 0);

/**
 * requestAttributes — kube-apiserver's RequestInfoFactory: `/api/v1/...` and `/apis/<group>/<version>/...` with at
 * least a resource are resource requests; the verb comes from the method (GET → get, or list / watch without a name,
 * `watch=true` or a `/watch/` segment; DELETE without a name → deletecollection); `namespaces/<ns>/` scopes it; the
 * third part is the subresource (`pods/eviction`, `nodes/proxy`, `nodes/status`); a list or watch whose field
 * selector fixes `metadata.name` is about that name. Anything else is a non-resource request on its path.
 */
export function requestAttributes(method: string, url: URL): RequestAttributes {
  const path = url.pathname;
  const base: RequestAttributes = { resourceRequest: false, path, verb: method.toLowerCase(), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  let parts = splitPath(path);
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return base;
  const prefix = parts[0];
  parts = parts.slice(1);
  let apiGroup = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return base;
    apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  const out: RequestAttributes = { ...base, resourceRequest: true, apiGroup, apiVersion: parts[0]! };
  parts = parts.slice(1);
  const special = parts[0] === 'watch' || parts[0] === 'proxy' ? parts[0] : undefined;
  if (special) parts = parts.slice(1);
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      out.namespace = parts[1]!;
      if (parts.length > 2 && parts[2] !== 'status' && parts[2] !== 'finalize') parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && special !== 'proxy') out.subresource = parts[2]!;
  if (parts.length >= 2) out.name = parts[1]!;
  if (parts.length >= 1) out.resource = parts[0]!;
  const watch = url.searchParams.get('watch');
  out.verb = special ?? apiVerb(method.toUpperCase() === 'HEAD' ? 'GET' : method, { named: out.name !== '', watch: out.name === '' && (watch === 'true' || watch === '1') });
  if (!out.name && (out.verb === 'list' || out.verb === 'watch')) {
    const exact = (url.searchParams.get('fieldSelector') ?? '').split(',').map((t) => /^metadata\.name==?(.+)$/.exec(t.trim())?.[1]).find((n) => n !== undefined);
    if (exact && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(exact)) out.name = exact;
  }
  return out;
}

/** forbiddenMessage — kube-apiserver's 403 message for these attributes. */
export function forbiddenMessage(user: UserInfo, a: RequestAttributes): string {
  if (!a.resourceRequest) return `forbidden: User "${user.name}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = `${a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource}${a.name ? ` "${a.name}"` : ''}`;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${what} is forbidden: User "${user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${where}`;
}

const matchesAny = (values: readonly string[] | undefined, v: string): boolean => (values ?? []).some((x) => x === '*' || x === v);

/** resourceMatches — kube's ResourceMatches: `*`, the exact `resource[/subresource]`, or `*\/<subresource>`. */
function resourceMatches(ruleResource: string, a: RequestAttributes): boolean {
  if (ruleResource === '*') return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (ruleResource === combined) return true;
  return a.subresource !== '' && ruleResource === `*/${a.subresource}`;
}

const pathMatches = (rule: string, path: string): boolean => (rule.endsWith('*') ? path.startsWith(rule.slice(0, -1)) : rule === path);

interface Binding {
  id: string;
  namespace?: string;
  role: string;
  rules: PolicyRule[];
  subjects: { kind: string; name: string; namespace?: string }[];
}

/**
 * RbacPolicy — the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings of a set of manifests (other kinds are
 * ignored). A binding to a role that does not exist grants nothing, as on a cluster; an aggregated ClusterRole is
 * refused (nothing here aggregates, and a silent empty role would prove nothing).
 */
export class RbacPolicy {
  private readonly bindings: Binding[];

  constructor(objects: readonly unknown[]) {
    const docs = objects as RbacObject[];
    const roles = new Map<string, PolicyRule[]>();
    for (const d of docs) {
      if (d.kind !== 'ClusterRole' && d.kind !== 'Role') continue;
      if (d.aggregationRule) throw new Error(`ClusterRole ${d.metadata?.name}: aggregated roles are not supported by the simulator`);
      roles.set(d.kind === 'Role' ? `Role/${d.metadata?.namespace ?? 'default'}/${d.metadata?.name}` : `ClusterRole/${d.metadata?.name}`, d.rules ?? []);
    }
    this.bindings = [];
    for (const d of docs) {
      if (d.kind !== 'ClusterRoleBinding' && d.kind !== 'RoleBinding') continue;
      const ns = d.kind === 'RoleBinding' ? (d.metadata?.namespace ?? 'default') : undefined;
      const role = d.roleRef?.kind === 'Role' ? `Role/${ns}/${d.roleRef.name}` : `ClusterRole/${d.roleRef?.name}`;
      this.bindings.push({
        id: ns ? `RoleBinding/${ns}/${d.metadata?.name}` : `ClusterRoleBinding/${d.metadata?.name}`,
        ...(ns ? { namespace: ns } : {}),
        role,
        rules: roles.get(role) ?? [],
        subjects: (d.subjects ?? []).map((s) => ({ kind: s.kind ?? '', name: s.name ?? '', ...(s.namespace ? { namespace: s.namespace } : {}) })),
      });
    }
  }

  /** grants — every grant the policy gives `user`, one per (binding, rule, apiGroup, resource, verb) or (non-resource URL, verb). */
  grants(user: UserInfo): Grant[] {
    const out: Grant[] = [];
    for (const b of this.bindings.filter((x) => this.binds(x, user))) {
      b.rules.forEach((r, i) => {
        const common = { role: b.role, binding: b.id, rule: i, ...(b.namespace ? { namespace: b.namespace } : {}), ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) };
        for (const verb of r.verbs ?? []) {
          for (const apiGroup of r.apiGroups ?? []) for (const resource of r.resources ?? []) out.push({ ...common, apiGroup, resource, verb });
          if (!b.namespace) for (const url of r.nonResourceURLs ?? []) out.push({ ...common, apiGroup: '', resource: '', verb, nonResourceURL: url });
        }
      });
    }
    return out;
  }

  /** authorize — allowed when some grant matches (or the user is in system:masters, or it is discovery); names every matching grant. */
  authorize(user: UserInfo, a: RequestAttributes): Decision {
    if (user.groups.includes(MASTERS)) return { allowed: true, grants: [], builtIn: MASTERS };
    const grants = this.grants(user).filter((g) => grantAllows(g, a));
    if (grants.length > 0) return { allowed: true, grants };
    if (!a.resourceRequest && a.verb === 'get') {
      const authenticated = user.groups.includes('system:authenticated');
      if (authenticated && DISCOVERY_PATHS.some((p) => pathMatches(p, a.path))) return { allowed: true, grants: [], builtIn: 'system:discovery' };
      if (PUBLIC_PATHS.some((p) => pathMatches(p, a.path))) return { allowed: true, grants: [], builtIn: 'system:public-info-viewer' };
    }
    return { allowed: false, grants: [] };
  }

  private binds(b: Binding, user: UserInfo): boolean {
    return b.subjects.some((s) =>
      s.kind === 'ServiceAccount' ? user.name === `system:serviceaccount:${s.namespace ?? b.namespace ?? ''}:${s.name}` : s.kind === 'User' ? s.name === user.name : s.kind === 'Group' && user.groups.includes(s.name),
    );
  }
}

/** grantAllows — the RBAC authorizer's rule match for one grant. */
export function grantAllows(g: Grant, a: RequestAttributes): boolean {
  if (!matchesAny([g.verb], a.verb)) return false;
  if (!a.resourceRequest) return g.nonResourceURL !== undefined && pathMatches(g.nonResourceURL, a.path);
  if (g.nonResourceURL !== undefined) return false;
  if (g.namespace !== undefined && g.namespace !== a.namespace) return false;
  if (!matchesAny([g.apiGroup], a.apiGroup) || !resourceMatches(g.resource, a)) return false;
  return !g.resourceNames || (a.name !== '' && g.resourceNames.includes(a.name));
}
