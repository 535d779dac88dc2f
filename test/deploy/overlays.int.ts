import { describe, expect, it } from '@jest/globals';
import { RbacPolicy, serviceAccountUser } from '@nodes-manager/sim';
import { RBAC_KINDS, renderKustomization } from './support/kustomize.js';
import { read, SERVICES } from './support/source-graph.js';
import { validate } from './support/validate.js';

/**
 * The kustomizations as a cluster receives them (`kubectl kustomize`), each object validated against the Kubernetes
 * schema (kubernetes-models): the base, the production overlay and the all-in-one overlay (docs/deploy.md, "Overlays").
 */
const NS = 'nodes-manager';
const base = renderKustomization('deploy');
const production = renderKustomization('deploy/overlays/production');
const allInOne = renderKustomization('deploy/overlays/all-in-one');
const of = (objs: any[], kind: string) => objs.filter((o) => o.kind === kind);
const named = (objs: any[], kind: string, name: string) => of(objs, kind).find((o) => o.metadata.name === name);
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

/** memory — a Kubernetes quantity of memory in bytes (Ki, Mi, Gi or plain). */
const memory = (q: string): number => {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi)?$/.exec(q);
  if (!m) throw new Error(`unexpected memory quantity ${q}`);
  return Number(m[1]) * ({ Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[m[2] ?? ''] ?? 1);
};

/** peakRss — each watching service's peak RSS (MB) at `nodes` nodes, from docs/benchmarks.md's scaling table. */
function peakRss(nodes: string): Record<string, number> {
  const out: Record<string, number> = {};
  // | nodes | pods | service | lists by | first sync | no-change cycle | peak RSS | …: the larger of the two list paths
  for (const m of read('docs/benchmarks.md').matchAll(/^\| ([\d,]+) \| [\d,]+ \| ([\w-]+) \| (?:WatchList|paged LIST) \| [^|]+ \| [^|]+ \| ([\d,]+) MB \|/gm)) {
    if (m[1] === nodes) out[m[2]!] = Math.max(out[m[2]!] ?? 0, Number(m[3]!.replace(/,/g, '')));
  }
  return out;
}

describe.each([
  ['base (deploy/)', base],
  ['production overlay', production],
  ['all-in-one overlay', allInOne],
] as const)('%s', (_, objects) => {
  it('renders, and every object validates against the Kubernetes schema', () => {
    expect(objects.length).toBeGreaterThan(5);
    const invalid = objects.flatMap((o) => {
      try {
        validate(o);
        return [];
      } catch (err) {
        return [`${o.kind}/${o.metadata?.name}: ${(err as Error).message.slice(0, 300)}`];
      }
    });
    expect(invalid).toEqual([]);
  });

  it('the validator refuses a broken object from it (the check can fail)', () => {
    const d = structuredClone(of(objects, 'Deployment')[0]);
    d.spec.template.spec.containers[0].resources.requests.memory = { gigabytes: 1 };
    expect(() => validate(d)).toThrow();
  });
});

describe('production overlay', () => {
  const deployments = of(production, 'Deployment');

  it('runs two replicas of every service, at the nodes-manager PriorityClass, which preempts nothing', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...SERVICES].sort());
    for (const d of deployments) expect([d.metadata.name, d.spec.replicas, d.spec.template.spec.priorityClassName]).toEqual([d.metadata.name, 2, 'nodes-manager']);
    const pc = named(production, 'PriorityClass', 'nodes-manager');
    expect(pc).toMatchObject({ value: expect.any(Number), globalDefault: false, preemptionPolicy: 'Never' });
    expect(pc.value).toBeGreaterThan(0);
    expect(pc.value).toBeLessThan(1_000_000_000); // below the system classes
    for (const h of of(production, 'HorizontalPodAutoscaler')) expect(h.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it('keeps every service available through a drain: a PDB over its pods that lets one go at a time', () => {
    for (const d of deployments) {
      const pdbs = of(production, 'PodDisruptionBudget').filter((p) => selects(p.spec.selector.matchLabels, d.spec.template.metadata.labels));
      expect(`${d.metadata.name} ${pdbs.length}`).toBe(`${d.metadata.name} 1`);
      const away = pdbs[0].spec.maxUnavailable ?? d.spec.replicas - pdbs[0].spec.minAvailable;
      expect(`${d.metadata.name} ${away}`).toBe(`${d.metadata.name} 1`);
    }
  });

  it('spreads the replicas across zones (enforced) and hosts', () => {
    for (const d of deployments) {
      const spread = d.spec.template.spec.topologySpreadConstraints;
      expect(spread.map((c: any) => `${c.topologyKey} ${c.whenUnsatisfiable} ${c.maxSkew}`)).toEqual(['topology.kubernetes.io/zone DoNotSchedule 1', 'kubernetes.io/hostname ScheduleAnyway 1']);
    }
  });

  it("requests at least the benchmark's peak memory at 5,000 nodes for the watching services, and limits above every request", () => {
    const peaks = peakRss('5,000');
    expect(Object.keys(peaks).sort()).toEqual(['node-sync', 'scheduler-scoring', 'uncordon']);
    for (const d of deployments) {
      const r = d.spec.template.spec.containers[0].resources;
      const peak = peaks[d.metadata.name];
      if (peak !== undefined) expect(`${d.metadata.name} ${memory(r.requests.memory) >= peak * 1e6}`).toBe(`${d.metadata.name} true`);
      expect(`${d.metadata.name} ${memory(r.limits.memory) > memory(r.requests.memory)}`).toBe(`${d.metadata.name} true`);
    }
  });

  it('changes nothing else of the base: the same RBAC, the same commands and security contexts', () => {
    expect(production.filter((o) => RBAC_KINDS.has(o.kind))).toEqual(base.filter((o) => RBAC_KINDS.has(o.kind)));
    for (const d of deployments) {
      const b = named(base, 'Deployment', d.metadata.name);
      expect(d.spec.template.spec.containers[0].command).toEqual(b.spec.template.spec.containers[0].command);
      expect(d.spec.template.spec.containers[0].securityContext).toEqual(b.spec.template.spec.containers[0].securityContext);
    }
  });
});

describe('all-in-one overlay', () => {
  it('is one Deployment running every module, from the same image, as locked down as the services', () => {
    const deployments = of(allInOne, 'Deployment');
    expect(deployments.map((d) => d.metadata.name)).toEqual(['nodes-manager']);
    const pod = deployments[0].spec.template.spec;
    const c = pod.containers[0];
    expect(c.command).toEqual(['node', 'dist/all-in-one/src/main.js']);
    expect(c.image).toBe(named(base, 'Deployment', 'uncordon').spec.template.spec.containers[0].image);
    expect(c.securityContext).toEqual(named(base, 'Deployment', 'uncordon').spec.template.spec.containers[0].securityContext);
    expect(pod.serviceAccountName).toBe('nodes-manager');
    expect([c.livenessProbe.httpGet.path, c.readinessProbe.httpGet.path, c.ports[0].containerPort]).toEqual(['/healthz', '/readyz', 8115]);
    expect(c.envFrom).toContainEqual({ configMapRef: { name: 'nodes-manager-config' } });
    expect(of(allInOne, 'ServiceAccount').map((s) => s.metadata.name)).toEqual(['nodes-manager']);
    expect(of(allInOne, 'Service').map((s) => s.spec.ports[0].port)).toEqual([8115]);
  });

  it('its ServiceAccount holds exactly what the six services hold together, nothing more', () => {
    const key = (g: { apiGroup: string; resource: string; verb: string; namespace?: string }) => `${g.apiGroup}/${g.resource}:${g.verb}${g.namespace ? ` in ${g.namespace}` : ''}`;
    const split = new RbacPolicy(base.filter((o) => RBAC_KINDS.has(o.kind)));
    const union = new Set(SERVICES.flatMap((s) => split.grants(serviceAccountUser(NS, s)).map(key)));
    const one = new Set(new RbacPolicy(allInOne.filter((o) => RBAC_KINDS.has(o.kind))).grants(serviceAccountUser(NS, 'nodes-manager')).map(key));
    expect([...one].sort()).toEqual([...union].sort());
    expect(union.size).toBeGreaterThan(20);
  });

  it('lets out what the services let out together (DNS, broker, database, API server and EC2)', () => {
    const ports = (objs: any[]) => new Set(of(objs, 'NetworkPolicy').flatMap((p) => p.spec.egress.flatMap((r: any) => (r.ports ?? []).map((x: any) => x.port))));
    expect([...ports(allInOne)].sort()).toEqual([...ports(base)].sort());
  });
});
