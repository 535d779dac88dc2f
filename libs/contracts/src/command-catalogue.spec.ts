import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { commandAnswerers, commandCatalogueMarkdown } from './command-catalogue.js';
import { COMMAND_OWNER, Commands } from './commands.js';
import { COMMAND_SCHEMAS, commandNameOf, type CommandName } from './command-schemas/index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const COMMANDS_PATH = new URL('../../../docs/commands.md', import.meta.url);

// Regenerating is explicit; without UPDATE_DOCS the committed page must already equal the generated one.
if (process.env['UPDATE_DOCS'] === '1') writeFileSync(COMMANDS_PATH, commandCatalogueMarkdown());

const names = Object.keys(COMMAND_SCHEMAS) as CommandName[];

describe('the command catalogue', () => {
  it.each(names)('%s: its request and reply schemas compile under strict Ajv', (name) => {
    const ajv = addFormats(new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, useDefaults: true }));
    expect(() => ajv.compile(COMMAND_SCHEMAS[name].request)).not.toThrow();
    expect(() => ajv.compile(COMMAND_SCHEMAS[name].reply)).not.toThrow();
  });

  it('has a schema for every command of Commands, and an owner for every one but the per-service ones', () => {
    for (const pattern of Object.values(Commands)) expect([pattern, commandNameOf(pattern)]).toEqual([pattern, pattern]);
    for (const name of names) expect([name, commandAnswerers(name).length > 0]).toEqual([name, true]);
    expect(Object.keys(COMMAND_OWNER).every((p) => names.includes(p as CommandName))).toBe(true);
  });

  it.each([
    ['a per-service approval pattern', 'approvals.list.uncordon', 'approvals.list'],
    ['a per-service status pattern', 'service.status.node-sync', 'service.status'],
    ['a command of its own', 'nodes.list', 'nodes.list'],
    ['a pattern nobody declared', 'nodes.purge', undefined],
    ['an approval verb that does not exist', 'approvals.purge.uncordon', undefined],
  ])('names %s: %s → %s', (_what, pattern, name) => {
    expect(commandNameOf(pattern)).toBe(name);
  });
});

describe('docs/commands.md', () => {
  it('is what libs/contracts generates (regenerate with UPDATE_DOCS=1)', () => {
    expect(readFileSync(COMMANDS_PATH, 'utf8')).toBe(commandCatalogueMarkdown());
  });

  it('has a section for every command', () => {
    const page = commandCatalogueMarkdown();
    for (const name of names) expect(page).toContain(`### \`${name}`);
  });
});
