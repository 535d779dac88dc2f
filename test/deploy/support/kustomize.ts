import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import YAML from 'yaml';
import { ROOT } from './source-graph.js';

/** renderKustomization — `kubectl kustomize <dir>` (repo-relative), as the objects a cluster would receive. */
export function renderKustomization(dir: string): any[] {
  const out = execFileSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8', maxBuffer: 32 << 20 });
  return YAML.parseAllDocuments(out)
    .map((d) => {
      if (d.errors.length) throw new Error(`kubectl kustomize ${dir}: ${d.errors.map((e) => e.message).join('; ')}`);
      return d.toJS() as unknown;
    })
    .filter((d) => d !== null && d !== undefined);
}

/** RBAC_KINDS — the objects the API server's RBAC authorizer reads. */
export const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
