import { ApiError, badRequest, notFound } from '../errors.js';
import { computePdbCounts, type PodHealth } from '../pdb.js';
import type { KubeObject } from '../resources.js';
import { matchesSelectorObject } from '../selectors.js';
import type { Entry } from '../store.js';
import { CONTROLLER_MANAGER, PDBS, PODS, type WriteContext, k8sTime } from './types.js';
import { ApiWrites } from './writes.js';

/** ApiEvictions — the eviction subresource and the disruption controller that keeps budgets' status current. */
export class ApiEvictions extends ApiWrites {
  // ---- eviction and disruption budgets ---------------------------------------------------------------

  private pdbsFor(pod: Entry): { entry: Entry; obj: KubeObject }[] {
    const out: { entry: Entry; obj: KubeObject }[] = [];
    for (const [, e] of this.store.scan(PDBS, pod.ns)) {
      const obj = JSON.parse(e.json) as KubeObject;
      if (matchesSelectorObject(obj.spec?.selector, pod.labels as Record<string, string>)) out.push({ entry: e, obj });
    }
    return out;
  }

  private podHealth(ns: string, selector: KubeObject | undefined): PodHealth[] {
    const out: PodHealth[] = [];
    for (const [, e] of this.store.scan(PODS, ns)) {
      if (!matchesSelectorObject(selector, e.labels as Record<string, string>)) continue;
      out.push(healthOf(e));
    }
    return out;
  }

  /**
   * evict — the eviction subresource: terminal or pending pods go at once; more than one budget is a 500;
   * a budget with no disruptions allowed is a 429; otherwise the budget's allowance drops by one and the
   * pod is deleted gracefully.
   */
  evict(ns: string, name: string, body: KubeObject, ctx: WriteContext): void {
    if (body?.metadata?.name && body.metadata.name !== name) {
      throw badRequest(`name in URL does not match name in Eviction object`);
    }
    const pod = this.store.get(PODS, ns, name);
    if (!pod) throw notFound('pods', '', name);
    const phase = pod.fields['status.phase'];
    const gracePeriodSeconds = body?.deleteOptions?.gracePeriodSeconds as number | undefined;
    const canIgnore = phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.fields['~deleting'] === 'true';
    if (!canIgnore) {
      const pdbs = this.pdbsFor(pod);
      if (pdbs.length > 1) {
        throw new ApiError(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
      }
      if (pdbs.length === 1) {
        const { obj } = pdbs[0]!;
        const counts = computePdbCounts(obj.spec ?? {}, this.podHealth(ns, obj.spec?.selector));
        if (counts.disruptionsAllowed <= 0) {
          throw new ApiError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', {
            causes: [{
              reason: 'DisruptionBudget',
              message: `The disruption budget ${obj.metadata.name} needs ${counts.desiredHealthy} healthy pods and has ${counts.currentHealthy} currently`,
            }],
          });
        }
        if (!ctx.dryRun) {
          const next = structuredClone(obj);
          next.status = {
            ...next.status,
            ...counts,
            disruptionsAllowed: counts.disruptionsAllowed - 1,
            disruptedPods: { ...(next.status?.disruptedPods ?? {}), [name]: k8sTime(ctx.now) },
          };
          this.commit(PDBS, obj, next, { manager: 'kube-apiserver', now: ctx.now }, 'Update', 'status');
        }
      }
    }
    if (ctx.dryRun) return;
    this.delete(PODS, ns, name, ctx, gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {});
  }

  protected markPdbs(ns: string | undefined): void {
    if (!ns) return;
    this.dirtyPdbNamespaces.add(ns);
    this.pdbFlush ??= setImmediate(() => {
      this.pdbFlush = undefined;
      const namespaces = [...this.dirtyPdbNamespaces];
      this.dirtyPdbNamespaces.clear();
      for (const n of namespaces) this.refreshPdbs(n);
    });
  }

  /** refreshPdbs — the disruption controller: recompute and store each budget's status in a namespace. */
  refreshPdbs(ns: string): void {
    const budgets = [...this.store.scan(PDBS, ns)].map(([, e]) => JSON.parse(e.json) as KubeObject);
    if (budgets.length === 0) return;
    // One pass over the namespace's pods, indexed by the first matchLabels pair each budget uses.
    const keys = new Set<string>();
    for (const b of budgets) {
      const first = Object.entries((b.spec?.selector?.matchLabels ?? {}) as Record<string, string>)[0];
      if (first) keys.add(first[0]);
    }
    const index = new Map<string, Entry[]>();
    const all: Entry[] = [];
    for (const [, e] of this.store.scan(PODS, ns)) {
      all.push(e);
      for (const k of keys) {
        const v = e.labels[k];
        if (v === undefined) continue;
        const slot = `${k}=${v}`;
        (index.get(slot) ?? index.set(slot, []).get(slot)!).push(e);
      }
    }
    for (const obj of budgets) {
      const first = Object.entries((obj.spec?.selector?.matchLabels ?? {}) as Record<string, string>)[0];
      const candidates = first ? (index.get(`${first[0]}=${first[1]}`) ?? []) : all;
      const health = candidates
        .filter((e) => matchesSelectorObject(obj.spec?.selector, e.labels as Record<string, string>))
        .map(healthOf);
      const counts = computePdbCounts(obj.spec ?? {}, health);
      const allowed = counts.disruptionsAllowed > 0;
      const prevCond = (obj.status?.conditions ?? []).find((c: KubeObject) => c.type === 'DisruptionAllowed');
      const status = {
        observedGeneration: obj.metadata.generation ?? 1,
        ...counts,
        conditions: [{
          type: 'DisruptionAllowed',
          status: allowed ? 'True' : 'False',
          reason: allowed ? 'SufficientPods' : 'InsufficientPods',
          message: '',
          observedGeneration: obj.metadata.generation ?? 1,
          lastTransitionTime: prevCond && prevCond.status === (allowed ? 'True' : 'False') ? prevCond.lastTransitionTime : k8sTime(this.opts.clock()),
        }],
      };
      if (JSON.stringify(status) === JSON.stringify({ ...obj.status, disruptedPods: undefined })) continue;
      const next = { ...structuredClone(obj), status };
      this.commit(PDBS, obj, next, { manager: CONTROLLER_MANAGER, now: this.opts.clock() }, 'Update', 'status');
    }
  }

  /** refreshAllPdbs — after a bulk load. */
  refreshAllPdbs(): void {
    const namespaces = new Set<string>();
    for (const [, e] of this.store.scan(PDBS, undefined)) namespaces.add(e.ns);
    for (const ns of namespaces) this.refreshPdbs(ns);
  }
}

const healthOf = (e: Entry): PodHealth => {
  const phase = e.fields['status.phase'];
  return { ready: e.fields['~ready'] === 'true', deleting: e.fields['~deleting'] === 'true', terminal: phase === 'Succeeded' || phase === 'Failed' };
};
