import { spawnSync } from 'node:child_process';

/** Units Prometheus wants spelled in base units (seconds, bytes) and whole words. */
const NON_BASE_UNITS = /(^|_)(milliseconds|microseconds|nanoseconds|ms|us|ns|minutes|hours|days|kilobytes|megabytes|gigabytes|kb|mb|gb|kib|mib|gib|secs|sec)(_|$)/;

/**
 * lintExposition — the checks of `promtool check metrics` (Prometheus' promlint) that a hand-written exposition can
 * break, plus the project's own naming rules, as one list of problems (empty: clean):
 * every family has HELP and TYPE; names are lower snake case and start with `nodes_manager_`; counters end in
 * `_total` and nothing else does; units are base units; no name repeats a segment (`process_process`); the
 * `service` label, where present, is a service name (`node-sync`), never a class name.
 */
export function lintExposition(text: string, prefix = 'nodes_manager_'): string[] {
  const problems: string[] = [];
  const help = new Set<string>();
  const types = new Map<string, string>();
  const samples = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      if (meta[1] === 'HELP') {
        if (!meta[3]?.trim()) problems.push(`${meta[2]}: empty HELP`);
        help.add(meta[2]!);
      } else types.set(meta[2]!, meta[3] ?? '');
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? \S+/.exec(line);
    if (!sample) {
      problems.push(`unparsable line: ${line}`);
      continue;
    }
    const list = samples.get(sample[1]!) ?? [];
    list.push(sample[2] ?? '');
    samples.set(sample[1]!, list);
  }
  for (const [name, type] of types) {
    if (!help.has(name)) problems.push(`${name}: no HELP`);
    if (!/^[a-z][a-z0-9_]*$/.test(name)) problems.push(`${name}: not lower snake case`);
    if (!name.startsWith(prefix)) problems.push(`${name}: does not start with ${prefix}`);
    if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter metrics should have "_total" suffix`);
    if (type !== 'counter' && name.endsWith('_total')) problems.push(`${name}: non-counter metrics should not have "_total" suffix`);
    if (NON_BASE_UNITS.test(name)) problems.push(`${name}: use base units (seconds, bytes)`);
    const segments = name.split('_');
    if (segments.some((s, i) => i > 0 && s === segments[i - 1])) problems.push(`${name}: repeated segment`);
  }
  for (const [name, labelSets] of samples) {
    const family = [...types.keys()].find((f) => name === f || ['_bucket', '_sum', '_count'].some((s) => name === f + s));
    if (!family) problems.push(`${name}: sample without TYPE`);
    for (const labels of labelSets) {
      const service = /(?:^\{|,)service="([^"]*)"/.exec(labels)?.[1];
      if (service !== undefined && !/^[a-z][a-z0-9-]*$/.test(service)) problems.push(`${name}: service label "${service}" is not a service name`);
    }
  }
  return [...new Set(problems)];
}

/** promtoolPath — `promtool` from PATH, or undefined when it is not installed. */
export function promtoolPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

/** promtoolProblems — what `promtool check metrics` says about an exposition (empty: clean); undefined without promtool. */
export function promtoolProblems(text: string): string[] | undefined {
  const bin = promtoolPath();
  if (!bin) return undefined;
  const r = spawnSync(bin, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`.trim();
  return r.status === 0 && !out ? [] : out.split('\n').filter(Boolean);
}
