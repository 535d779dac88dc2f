// Checks the layering rules of .dependency-cruiser.cjs (docs/design.md#layering) over the repository, or over
// another tree given with --base DIR (the rules' own test feeds it a tree of violations that way).
// Prints one line per violation, `layers: <modules> modules, <violations> violations`, and exits 1 on any.
//
// dependency-cruiser's command line refuses Node 20, which this project runs on; its API works on it, so this
// script calls the API with the same configuration file the command line would read.
import { cruise } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const baseAt = args.indexOf('--base');
const base = resolve(baseAt >= 0 ? args[baseAt + 1] : '.');
const config = createRequire(import.meta.url)(resolve('.dependency-cruiser.cjs'));
const roots = ['libs', 'services', 'migrations', 'test', 'all-in-one', 'bench', 'scripts'].filter((d) => existsSync(join(base, d)));

const tsConfigFile = join(base, config.options.tsConfig.fileName);
const hasTsConfig = existsSync(tsConfigFile);
const { options } = config;
const result = await cruise(
  roots,
  {
    ...options,
    ...(hasTsConfig ? {} : { tsConfig: undefined }),
    baseDir: base,
    ruleSet: { forbidden: config.forbidden },
    validate: true,
  },
  undefined,
  hasTsConfig ? { tsConfig: extractTSConfig(tsConfigFile) } : undefined,
);
const { summary } = result.output;
for (const v of summary.violations) {
  process.stdout.write(`${v.rule.severity} ${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((c) => c.name ?? c).join(' → ')})` : ''}\n`);
}
process.stdout.write(`layers: ${summary.totalCruised} modules, ${summary.violations.length} violations\n`);
process.exit(summary.violations.length > 0 ? 1 : 0);
