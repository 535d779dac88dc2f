import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.js';
import { ANONYMOUS, forbiddenMessage, RbacPolicy, requestAttributes, type Decision, type RequestAttributes, type UserInfo } from './rbac.js';

/** RbacRecord — one request a non-superuser made while RBAC was enforced, and what the authorizer said. */
export interface RbacRecord extends RequestAttributes, Decision {
  user: string;
}

/** The simulator's own kubeconfig token: a member of system:masters, as a cluster admin's credentials are. */
export const ADMIN_TOKEN = 'sim';

/**
 * RbacGate — authentication by bearer token and RBAC authorization in front of every API request, off until
 * {@link enforce} (every other test is unchanged). Enforced: an unknown token is 401, a request no grant allows is
 * 403 with kube-apiserver's Status; every request of a non-superuser is recorded with the grants that allowed it.
 */
export class RbacGate {
  private enforcing = false;
  private policy = new RbacPolicy([]);
  private readonly tokens = new Map<string, UserInfo>([[ADMIN_TOKEN, { name: 'sim-admin', groups: ['system:masters', 'system:authenticated'] }]]);
  private readonly log: RbacRecord[] = [];

  /** enforce — RBAC on, with the Roles, ClusterRoles and bindings among `objects` (other kinds ignored). */
  enforce(objects: readonly unknown[]): void {
    this.policy = new RbacPolicy(objects);
    this.enforcing = true;
  }

  /** disable — every request allowed again, as before {@link enforce}. */
  disable(): void {
    this.enforcing = false;
  }

  /** tokenFor — a new bearer token that authenticates as `user`. */
  tokenFor(user: UserInfo): string {
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, user);
    return token;
  }

  records(): RbacRecord[] {
    return this.log.map((r) => ({ ...r, grants: [...r.grants] }));
  }

  clearRecords(): void {
    this.log.length = 0;
  }

  /** check — throws the API server's 401 or 403 for a request it would refuse; records the decision. */
  check(req: IncomingMessage, url: URL): void {
    if (!this.enforcing) return;
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    const user = bearer === undefined ? ANONYMOUS : this.tokens.get(bearer);
    if (!user) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    const attrs = requestAttributes(req.method ?? 'GET', url);
    const decision = this.policy.authorize(user, attrs);
    if (!user.groups.includes('system:masters')) this.log.push({ ...attrs, ...decision, user: user.name });
    if (decision.allowed) return;
    const details = attrs.resourceRequest ? { ...(attrs.name ? { name: attrs.name } : {}), ...(attrs.apiGroup ? { group: attrs.apiGroup } : {}), kind: attrs.resource } : {};
    throw new ApiError(403, 'Forbidden', forbiddenMessage(user, attrs), details);
  }
}
