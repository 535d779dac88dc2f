import type { Grant, RbacRecord } from '@nodes-manager/sim';

/**
 * The least-privilege proof over one recorded scenario (docs/deploy.md, "RBAC per service"): a grant — one verb on one
 * resource of one rule of one role — is necessary when some request of the scenario was allowed by that grant and by
 * no other. Removing it makes that request a 403, so the same scenario run without it fails. RBAC is a union of
 * grants, so this holds for every grant at once from a single run; a few removals are also shown end to end.
 */

/** grantKey — `Role/…` or `ClusterRole/…`, rule index, group, resource, verb (and the namespace a RoleBinding confines it to). */
export const grantKey = (g: Grant): string => `${g.role}#${g.rule} ${g.apiGroup || 'core'}/${g.resource}:${g.verb}${g.namespace ? ` in ${g.namespace}` : ''}`;

/** describeRequest — a recorded request as a person reads it: `patch nodes "spot-1"`, `create pods/eviction in web`. */
export const describeRequest = (r: RbacRecord): string =>
  r.resourceRequest
    ? `${r.verb} ${r.apiGroup ? `${r.resource}.${r.apiGroup}` : r.resource}${r.subresource ? `/${r.subresource}` : ''}${r.name ? ` "${r.name}"` : ''}${r.namespace ? ` in ${r.namespace}` : ''}`
    : `${r.verb} ${r.path}`;

/** Necessity — per grant, the requests it alone allowed (empty: the grant is unused by the scenario). */
export interface Necessity {
  grant: Grant;
  user: string;
  solelyAllowed: RbacRecord[];
}

/** necessity — for each of `user`'s grants, the recorded requests of that user allowed by it and by no other grant. */
export function necessity(grants: readonly Grant[], user: string, records: readonly RbacRecord[]): Necessity[] {
  const mine = records.filter((r) => r.user === user && r.allowed);
  return grants.map((grant) => ({
    grant,
    user,
    solelyAllowed: mine.filter((r) => r.grants.length === 1 && grantKey(r.grants[0]!) === grantKey(grant)),
  }));
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/**
 * withoutGrant — the manifests with one grant taken away and every other grant of its rule kept: the rule is split into
 * one rule per remaining (apiGroup, resource, verb), its resourceNames kept. The role is found by the grant's `role`.
 */
export function withoutGrant(objects: readonly unknown[], g: Grant): unknown[] {
  return objects.map((o) => {
    const d = o as { kind?: string; metadata?: { name?: string; namespace?: string }; rules?: Rule[] };
    const id = d.kind === 'Role' ? `Role/${d.metadata?.namespace}/${d.metadata?.name}` : d.kind === 'ClusterRole' ? `ClusterRole/${d.metadata?.name}` : undefined;
    if (id !== g.role || !d.rules?.[g.rule]) return o;
    const rule = d.rules[g.rule]!;
    const rest: Rule[] = [];
    for (const apiGroup of rule.apiGroups ?? [])
      for (const resource of rule.resources ?? [])
        for (const verb of rule.verbs ?? [])
          if (!(apiGroup === g.apiGroup && resource === g.resource && verb === g.verb)) rest.push({ apiGroups: [apiGroup], resources: [resource], verbs: [verb], ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}) });
    return { ...d, rules: [...d.rules.slice(0, g.rule), ...rest, ...d.rules.slice(g.rule + 1)] };
  });
}
