import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { validate } from './support/validate.js';
import { configKeys, defaultPorts, deployFiles, loadManifests, named, ofKind, type Manifest } from './support/manifests.js';
import { deriveAccess } from './support/kube-calls.js';
import { ROOT, runtimeGraph, SERVICES, serviceEntry } from './support/source-graph.js';

const manifests = loadManifests();
const objects = manifests.filter((m) => m.doc.kind !== 'Kustomization');
const SECRET_KEYS = ['DATABASE_URL', 'RABBITMQ_URL', 'AUTH_JWT_ACCESS_SECRET', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];
const configMap = named(manifests, 'ConfigMap', 'nodes-manager-config')!;

describe('deploy/ manifests', () => {
  it('exist for every service', () => {
    expect(deployFiles().length).toBeGreaterThan(5);
    for (const svc of SERVICES) expect(named(manifests, 'Deployment', svc)).toBeDefined();
  });

  it.each(objects.map((m) => [`${m.file} ${m.doc.kind}/${m.doc.metadata?.name}`, m] as const))('%s validates against the Kubernetes schema', (_, m) => {
    expect(() => validate(m.doc)).not.toThrow();
  });

  it('the validator refuses a broken object (the check can fail)', () => {
    const d = structuredClone(named(manifests, 'Deployment', 'uncordon')!.doc);
    d.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    expect(() => validate(d)).toThrow(/containerPort/);
    const r = structuredClone(ofKind(manifests, 'PrometheusRule')[0]!.doc);
    r.spec.groups[0].rules = 'none';
    expect(() => validate(r)).toThrow();
  });

  it('every kustomization lists files that exist, and every manifest beside it (examples excepted)', () => {
    for (const k of ofKind(manifests, 'Kustomization')) {
      const dir = dirname(k.file);
      const listed: string[] = k.doc.resources;
      for (const r of listed) expect(existsSync(join(ROOT, dir, r))).toBe(true);
      const beside = deployFiles(dir).filter((f) => dirname(f) === dir && !/kustomization\.ya?ml$|\.example\.ya?ml$/.test(f));
      expect(beside.map((f) => f.slice(dir.length + 1)).sort()).toEqual([...listed].filter((r) => /\.ya?ml$/.test(r)).sort());
      // A `namespace:` would move uncordon's Role for Node events out of `default`.
      expect(k.doc.namespace).toBeUndefined();
    }
  });

  it('no secret value lives in the ConfigMap, and every ConfigMap key is a variable some service reads', () => {
    const keys = Object.keys(configMap.doc.data);
    const known = new Set([...configKeys(), 'AWS_ENDPOINT_URL_EC2', 'AWS_ENDPOINT_URL']);
    expect(keys.filter((k) => !known.has(k))).toEqual([]);
    expect(keys.filter((k) => SECRET_KEYS.includes(k))).toEqual([]);
  });

  describe.each(SERVICES.map((s) => [s]))('%s', (svc) => {
    const dep = named(manifests, 'Deployment', svc)!.doc;
    const pod = dep.spec.template.spec;
    const c = pod.containers[0];
    const envNames = new Set<string>([...c.env.map((e: any) => e.name), ...Object.keys(configMap.doc.data)]);

    it('runs its own main from the one image', () => {
      expect(c.image).toMatch(/^nodes-manager(:|$)/);
      expect(c.command).toEqual(['node', `dist/services/${svc}/src/main.js`]);
      expect(existsSync(join(ROOT, `services/${svc}/src/main.ts`))).toBe(true);
      expect(pod.serviceAccountName).toBe(svc);
      expect(c.envFrom).toContainEqual({ configMapRef: { name: 'nodes-manager-config' } });
    });

    it('is locked down: non-root, read-only root, no escalation, ALL capabilities dropped, requests and limits', () => {
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      for (const r of ['cpu', 'memory']) {
        expect(c.resources.requests[r]).toBeDefined();
        expect(c.resources.limits[r]).toBeDefined();
      }
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'tmp', emptyDir: expect.anything() }));
    });

    it('probes /healthz (liveness) and /readyz (readiness) on the port the service listens on', () => {
      const portVar = svc === 'api-gateway' ? 'APP_PORT' : 'HEALTH_PORT';
      const override = c.env.find((e: any) => e.name === portVar)?.value ?? configMap.doc.data[portVar];
      const expected = override !== undefined ? Number(override) : defaultPorts()[svc];
      expect(expected).toBeGreaterThan(0);
      const portOf = (p: number | string) => (typeof p === 'number' ? p : c.ports.find((x: any) => x.name === p)?.containerPort);
      expect(c.livenessProbe.httpGet.path).toBe('/healthz');
      expect(c.readinessProbe.httpGet.path).toBe('/readyz');
      for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) expect(portOf(probe.httpGet.port)).toBe(expected);
      const service = named(manifests, 'Service', svc)!.doc;
      expect(portOf(service.spec.ports[0].targetPort)).toBe(expected);
      expect(service.spec.selector).toEqual(dep.spec.selector.matchLabels);
      expect(dep.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(expected));
    });

    it('gets every required variable, and secrets only from the Secret', () => {
      const required = ['SCAN_INTERVAL_SECONDS', 'AUTH_JWT_ACCESS_SECRET', 'RABBITMQ_URL', ...(configKeys(svc).has('DATABASE_URL') && svc !== 'api-gateway' ? ['DATABASE_URL'] : [])];
      for (const v of required) expect(envNames.has(v)).toBe(true);
      for (const e of c.env.filter((e: any) => SECRET_KEYS.includes(e.name))) expect(e.valueFrom?.secretKeyRef?.name).toBe('nodes-manager-secrets');
      if (svc !== 'spot-advisor') expect(c.env.map((e: any) => e.name)).not.toContain('AWS_SECRET_ACCESS_KEY');
    });
  });

  it('the stateless services have an HPA, the leader-elected loops none, and no HPA goes below what the PDB keeps', () => {
    const hpas = ofKind(manifests, 'HorizontalPodAutoscaler').map((m: Manifest) => m.doc.spec.scaleTargetRef.name);
    expect(hpas.sort()).toEqual(['api-gateway', 'karpenter-gateway', 'spot-advisor']);
    for (const name of hpas) {
      const replicas = named(manifests, 'Deployment', name)!.doc.spec.replicas;
      const hpa = named(manifests, 'HorizontalPodAutoscaler', name)!.doc.spec;
      expect(`${name} ${hpa.minReplicas <= replicas && replicas <= hpa.maxReplicas}`).toBe(`${name} true`);
    }
    const pdb = named(manifests, 'PodDisruptionBudget', 'api-gateway')!.doc;
    expect(named(manifests, 'HorizontalPodAutoscaler', 'api-gateway')!.doc.spec.minReplicas).toBeGreaterThanOrEqual(pdb.spec.minAvailable + 1);
  });

  describe.each(SERVICES.map((s) => [s]))('%s survives a drain and a zone outage', (svc) => {
    const dep = named(manifests, 'Deployment', svc)!.doc;
    const labels = dep.spec.selector.matchLabels;

    it('has a PodDisruptionBudget over its pods that lets at most one replica go at a time, never all', () => {
      const pdb = named(manifests, 'PodDisruptionBudget', svc)?.doc;
      expect(pdb).toBeDefined();
      expect(pdb.spec.selector.matchLabels).toEqual(labels);
      const away = pdb.spec.maxUnavailable ?? dep.spec.replicas - pdb.spec.minAvailable;
      expect(typeof away).toBe('number');
      expect(away).toBeGreaterThanOrEqual(1); // a drain can still make progress
      expect(away).toBeLessThan(dep.spec.replicas);
    });

    it('spreads its replicas across zones and across hosts', () => {
      const spread = dep.spec.template.spec.topologySpreadConstraints ?? [];
      for (const key of ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']) {
        const c = spread.find((x: any) => x.topologyKey === key);
        expect({ key, maxSkew: c?.maxSkew, selects: c?.labelSelector?.matchLabels }).toEqual({ key, maxSkew: 1, selects: labels });
      }
    });
  });

  describe.each(SERVICES.map((s) => [s]))('%s NetworkPolicy', (svc) => {
    const dep = named(manifests, 'Deployment', svc)!.doc;
    const policy = named(manifests, 'NetworkPolicy', svc)?.doc;
    const port = dep.spec.template.spec.containers[0].ports[0].containerPort;
    const egressPorts = (): number[] => (policy?.spec.egress ?? []).flatMap((r: any) => (r.ports ?? []).map((p: any) => p.port));
    const talksToApiServer = deriveAccess(runtimeGraph([serviceEntry(svc)]).files).needs.length > 0;
    // The gateway owns no tables; its replicas share their rate-limit counts in the database (RATE_LIMIT_DATABASE_URL).
    const usesDatabase = (configKeys(svc).has('DATABASE_URL') && svc !== 'api-gateway') || configKeys(svc).has('RATE_LIMIT_DATABASE_URL');

    it('selects its pods and restricts both directions', () => {
      expect(policy).toBeDefined();
      expect(policy.spec.podSelector.matchLabels).toEqual(dep.spec.selector.matchLabels);
      expect([...policy.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    });

    it('lets in only its own port: from anywhere for the gateway (its API), from the monitoring namespace otherwise', () => {
      const rules = policy.spec.ingress;
      expect(rules.flatMap((r: any) => r.ports.map((p: any) => p.port))).toEqual([port]);
      if (svc === 'api-gateway') expect(rules.every((r: any) => r.from === undefined)).toBe(true);
      else expect(rules.every((r: any) => r.from?.length > 0 && r.from.every((f: any) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring'))).toBe(true);
    });

    it('lets out DNS and the broker, the database and the API server only if it uses them, HTTPS for EC2 only for spot-advisor', () => {
      const ports = egressPorts();
      expect(ports).toEqual(expect.arrayContaining([53, 5672]));
      expect(`database ${ports.includes(5432)}`).toBe(`database ${usesDatabase}`);
      expect(`api server ${ports.includes(6443)}`).toBe(`api server ${talksToApiServer}`);
      expect(`https ${ports.includes(443)}`).toBe(`https ${talksToApiServer || svc === 'spot-advisor'}`);
      expect(ports.filter((p) => ![53, 5671, 5672, 5432, 443, 6443].includes(p))).toEqual([]);
    });
  });

  it('one Namespace, enforcing the restricted Pod Security profile', () => {
    const ns = ofKind(manifests, 'Namespace');
    expect(ns.map((m) => m.doc.metadata.name)).toEqual(['nodes-manager']);
    expect(ns[0]!.doc.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });
});
