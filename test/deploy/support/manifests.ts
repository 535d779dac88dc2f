import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import YAML from 'yaml';
import { ROOT, read } from './source-graph.js';

/** Manifest — one YAML document of deploy/, with the file it came from. */
export interface Manifest {
  file: string;
  doc: any;
}

/**
 * deployFiles — every *.yaml / *.yml under deploy/ (repo-relative), read anew on each run; the overlays' patches are
 * not manifests (test/deploy/overlays.int.ts renders them).
 */
export function deployFiles(dir = 'deploy'): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir)).sort()) {
    const p = join(dir, name);
    if (p === join('deploy', 'overlays')) continue;
    if (statSync(join(ROOT, p)).isDirectory()) out.push(...deployFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(relative(ROOT, join(ROOT, p)));
  }
  return out;
}

export function loadManifests(files = deployFiles()): Manifest[] {
  const out: Manifest[] = [];
  for (const file of files) {
    for (const d of YAML.parseAllDocuments(read(file))) {
      if (d.errors.length) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
      const doc = d.toJS();
      if (doc !== null && doc !== undefined) out.push({ file, doc });
    }
  }
  return out;
}

export const ofKind = (ms: Manifest[], kind: string): Manifest[] => ms.filter((m) => m.doc.kind === kind);
export const named = (ms: Manifest[], kind: string, name: string): Manifest | undefined => ofKind(ms, kind).find((m) => m.doc.metadata?.name === name);

/** defaultPorts — each service's HTTP port default from its source: DEFAULT_HEALTH_PORTS, and the gateway's APP_PORT. */
export function defaultPorts(): Record<string, number> {
  const common = read('libs/platform/src/config/common.ts');
  const block = /DEFAULT_HEALTH_PORTS\s*=\s*\{([^}]*)\}/.exec(common)?.[1] ?? '';
  const ports: Record<string, number> = {};
  for (const m of block.matchAll(/'?([\w-]+)'?\s*:\s*(\d+)/g)) ports[m[1]!] = Number(m[2]);
  const app = /APP_PORT\s*:\s*env\.port\((\d+)\)/.exec(read('services/api-gateway/src/config.ts'));
  if (app) ports['api-gateway'] = Number(app[1]);
  return ports;
}

/** configKeys — every variable a service's config spec declares (services/*\/src/config.ts and the common shape). */
export function configKeys(svc?: string): Set<string> {
  const files = ['libs/platform/src/config/common.ts', ...(svc ? [`services/${svc}/src/config.ts`] : readdirSync(join(ROOT, 'services')).map((s) => `services/${s}/src/config.ts`))];
  const keys = new Set<string>();
  for (const f of files) for (const m of read(f).matchAll(/^\s+([A-Z][A-Z0-9_]+)\s*:\s*env\./gm)) keys.add(m[1]!);
  return keys;
}
