import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { read, ROOT, runtimeGraph, SERVICES, serviceEntry } from './support/source-graph.js';

/** Stage — one FROM … of the Dockerfile, with its instructions (continuation lines joined, comments dropped). */
interface Stage {
  name: string;
  from: string;
  instructions: { op: string; args: string }[];
}

function stages(): Stage[] {
  const lines = read('Dockerfile').replace(/\\\r?\n/g, ' ').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const out: Stage[] = [];
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op!.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(args)!;
      out.push({ from: m[1]!, name: m[2] ?? String(out.length), instructions: [] });
    } else out.at(-1)?.instructions.push({ op: op!.toUpperCase(), args });
  }
  return out;
}

/** copiesFrom — `COPY --from=<stage> … <src> <dest>` of a stage, as { stage, src, dest }. */
const copies = (s: Stage) =>
  s.instructions
    .filter((i) => i.op === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--'));
      return { stage: from, src: paths.slice(0, -1), dest: paths.at(-1)! };
    });

/** Packages Nest and TypeORM load by a computed name at run time, left outside the bundles. */
const LOADED_BY_NAME = ['amqp-connection-manager', 'pg'];

describe('Dockerfile', () => {
  const all = stages();
  const runtime = all.at(-1)!;
  const byName = new Map(all.map((s) => [s.name, s]));
  const runs = (s: Stage) => s.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);

  it('is multi-stage on Node 20: a build stage runs npm ci and npm run build', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const s of all) expect(s.from).toMatch(/^(node:20|\$\{NODE_IMAGE\})/);
    expect(all.map((s) => s.name)).toEqual(['build', 'runtime']);
    expect(read('Dockerfile')).toMatch(/ARG NODE_IMAGE=node:20[\w.-]*/);
    const build = all.find((s) => runs(s).some((r) => /npm run build/.test(r)))!;
    expect(build).toBeDefined();
    expect(runs(build).some((r) => /\bnpm ci\b(?!.*--omit)/.test(r))).toBe(true);
  });

  it('the runtime stage copies only what scripts/image/runtime-files.mjs gathered from the build (dist, traced node_modules, package.json)', () => {
    const c = copies(runtime);
    expect(c).toHaveLength(1);
    expect(c[0]!.stage).toBe('build');
    const gathered = runs(byName.get('build')!).find((r) => /node scripts\/image\/runtime-files\.mjs (\S+)/.test(r));
    expect(gathered).toMatch(/npm run build && node scripts\/image\/runtime-files\.mjs/);
    const out = /runtime-files\.mjs (\S+)/.exec(gathered!)![1]!;
    expect(c[0]!.src.map((p) => p.replace(/\/$/, ''))).toEqual([out]);
    const script = read('scripts/image/runtime-files.mjs');
    // It writes the package.json whose "type": "module" makes dist/*.js ES modules, and traces what is loaded by name.
    expect(script).toMatch(/type: pkg\.type/);
    expect(/LOADED_BY_NAME = \[([^\]]*)\]/.exec(script)?.[1]?.match(/'[^']+'/g)?.map((x) => x.slice(1, -1)).sort()).toEqual([...LOADED_BY_NAME].sort());
    // The build compiles migrations/ into dist/ (the services import them statically).
    expect(read('scripts/build.mjs')).toMatch(/'migrations'/);
  });

  it('runs as a numeric non-root user, has no HEALTHCHECK, and the command picks the service', () => {
    const user = runtime.instructions.filter((i) => i.op === 'USER').at(-1)?.args;
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user!.split(':')[0])).toBeGreaterThan(0);
    expect(all.flatMap((s) => s.instructions).filter((i) => i.op === 'HEALTHCHECK')).toEqual([]);
    expect(runtime.instructions.some((i) => i.op === 'ENTRYPOINT')).toBe(false);
    expect(runtime.instructions.find((i) => i.op === 'CMD')?.args).toMatch(/"node", "dist\/services\/[\w-]+\/src\/main\.js"/);
  });

  it('.dockerignore keeps host builds and state out of the context', () => {
    const ignored = read('.dockerignore').split(/\r?\n/).map((l) => l.trim());
    for (const p of ['node_modules', 'dist', '.data', '.git']) expect(ignored).toContain(p);
  });
});

describe('what each service imports at run time is in the production install', () => {
  const pkg = JSON.parse(read('package.json')) as { type: string; dependencies: Record<string, string> };
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
  const entries = [...SERVICES.map((s) => [s, [serviceEntry(s)]] as const), ['all-in-one demo and sim', ['all-in-one/src/demo.ts', 'libs/sim/src/cli.ts']] as const];

  it('package.json makes dist/ ES modules', () => expect(pkg.type).toBe('module'));

  it.each(entries.map(([name, files]) => [name, files]))('%s', (_, files) => {
    const g = runtimeGraph([...files]);
    expect(g.unresolved).toEqual([]);
    const names = [...new Set([...g.packages.keys(), ...LOADED_BY_NAME])];
    // Declared (not merely hoisted from another package) and kept by `npm ci --omit=dev`.
    expect(names.filter((n) => !pkg.dependencies[n])).toEqual([]);
    expect(names.filter((n) => !lock.packages[`node_modules/${n}`] || lock.packages[`node_modules/${n}`]!.dev)).toEqual([]);
  });

  it.each(SERVICES.filter((s) => existsSync(join(ROOT, `migrations/${s}/index.ts`))).map((s) => [s]))('%s imports its migrations (so dist/ carries them)', (svc) => {
    expect(runtimeGraph([serviceEntry(svc)]).files).toContain(`migrations/${svc}/index.ts`);
  });
});

describe('docker-compose.yml agrees with the image', () => {
  const compose = YAML.parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, any> };
  const ours = Object.entries(compose.services).filter(([, s]) => s.image === 'nodes-manager:local');

  it('runs every service from the one image, by its main', () => {
    for (const svc of SERVICES) {
      expect(compose.services[svc]?.image).toBe('nodes-manager:local');
      expect(compose.services[svc].command).toEqual(['node', `dist/services/${svc}/src/main.js`]);
    }
  });

  it('every command names a compiled entry that exists in source, with flags that entry accepts', () => {
    for (const [name, s] of ours) {
      const [node, entry, ...args] = s.command as string[];
      expect(node).toBe('node');
      const source = entry!.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect([name, existsSync(join(ROOT, source))]).toEqual([name, true]);
      const flags = args.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]!);
      if (flags.length) {
        const text = read(source);
        const options = /parseArgs\(\{\s*options:\s*\{([\s\S]*?)\n\s*\},?\n/.exec(text)?.[1] ?? '';
        const known = new Set([...options.matchAll(/^\s*'?([\w-]+)'?\s*:\s*\{\s*type/gm)].map((m) => m[1]!));
        expect([name, flags.filter((f) => !known.has(f))]).toEqual([name, []]);
      }
    }
  });

  it('services reach the simulators through a kubeconfig that names the sim service', () => {
    const kubeconfig = (compose as any).configs?.['sim-kubeconfig']?.content as string;
    expect(YAML.parse(kubeconfig).clusters[0].cluster.server).toMatch(/^http:\/\/sim:\d+$/);
    for (const svc of SERVICES) {
      const s = compose.services[svc];
      const target = s.configs?.find((c: any) => c.source === 'sim-kubeconfig')?.target;
      expect(s.environment.KUBECONFIG).toBe(target);
    }
  });
});
