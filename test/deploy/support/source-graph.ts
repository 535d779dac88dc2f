import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

/** ROOT — the repository root (this file is test/deploy/support/). */
export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../../..');

export const SERVICES = ['api-gateway', 'node-sync', 'uncordon', 'scheduler-scoring', 'karpenter-gateway', 'spot-advisor'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const read = (repoPath: string): string => readFileSync(join(ROOT, repoPath), 'utf8');

/** SourceImport — one import statement of a file; `typeOnly` imports are erased by the compiler. */
export interface SourceImport {
  specifier: string;
  typeOnly: boolean;
}

const IMPORT_RE = /(?:^|[;\n])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]/g;
const DYNAMIC_RE = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** importsOf — the static and dynamic imports of TypeScript source text (comments are not special-cased). */
export function importsOf(text: string): SourceImport[] {
  const out: SourceImport[] = [];
  for (const m of text.matchAll(IMPORT_RE)) out.push({ specifier: m[3]!, typeOnly: Boolean(m[2]) });
  for (const m of text.matchAll(DYNAMIC_RE)) out.push({ specifier: m[1]!, typeOnly: false });
  return out;
}

/** pathAliases — `@nodes-manager/*` → source entry, read from tsconfig.base.json on every run. */
export function pathAliases(): Map<string, string> {
  const cfg = JSON.parse(read('tsconfig.base.json')) as { compilerOptions: { paths: Record<string, string[]> } };
  return new Map(Object.entries(cfg.compilerOptions.paths).map(([k, v]) => [k, v[0]!]));
}

export const isBuiltin = (spec: string): boolean => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!);

/** packageName — `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export const packageName = (spec: string): string => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/**
 * RuntimeGraph — every source file a process started from `entries` loads (value imports only, followed through
 * relative paths and the `@nodes-manager/*` aliases), and the bare packages those files import.
 */
export interface RuntimeGraph {
  files: string[];
  /** package name → the files importing it (value imports only). */
  packages: Map<string, string[]>;
  /** Relative or aliased imports that resolve to no file. */
  unresolved: string[];
}

export function runtimeGraph(entries: string[]): RuntimeGraph {
  const aliases = pathAliases();
  const files = new Set<string>();
  const packages = new Map<string, string[]>();
  const unresolved: string[] = [];
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imp of importsOf(read(file))) {
      if (imp.typeOnly) continue;
      const spec = imp.specifier;
      let target: string | undefined;
      if (spec.startsWith('.')) {
        const base = join(dirname(file), spec.replace(/\.js$/, ''));
        target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(join(ROOT, p)));
        if (!target) unresolved.push(`${file}: ${spec}`);
      } else if (aliases.has(spec)) {
        target = aliases.get(spec);
      } else if (spec.startsWith('@nodes-manager/')) {
        unresolved.push(`${file}: ${spec}`);
      } else if (!isBuiltin(spec)) {
        const name = packageName(spec);
        packages.set(name, [...(packages.get(name) ?? []), file]);
      }
      if (target) queue.push(relative(ROOT, join(ROOT, target)));
    }
  }
  return { files: [...files].sort(), packages, unresolved };
}

/** serviceEntry — the source of `node dist/services/<svc>/src/main.js`. */
export const serviceEntry = (svc: ServiceName): string => `services/${svc}/src/main.ts`;
