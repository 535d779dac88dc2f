/**
 * The command catalogue as a page for people: docs/commands.md is generated from {@link commandCatalogueMarkdown} and
 * a test fails when the committed page differs from it. Data only: no I/O.
 */
import { APPROVAL_OWNERS } from './approvals.js';
import { COMMAND_OWNER } from './commands.js';
import { COMMAND_SCHEMAS, type CommandName } from './command-schemas/index.js';
import { ServiceNames, type ServiceName } from './events.js';
import type { JsonSchema } from './json-schema.js';

/** commandAnswerers — the services that answer a command: its owner, every service, or every owner of approvals. */
export function commandAnswerers(name: CommandName): readonly ServiceName[] {
  if (name === 'service.status') return ServiceNames.filter((s) => s !== 'api-gateway');
  if (name.startsWith('approvals.')) return [...new Set(Object.values(APPROVAL_OWNERS))];
  return [COMMAND_OWNER[name as keyof typeof COMMAND_OWNER]];
}

/** The pattern a command travels under: its name, or, for the per-service ones, `<name>.<service>`. */
const travelsAs = (name: CommandName): string => (name === 'service.status' || name.startsWith('approvals.') ? `${name}.<service>` : name);

/** typeOf — a schema's type in a few words: `string (date-time)`, `one of a, b`, `array of object`, `object or null`. */
function typeOf(s: JsonSchema): string {
  if (Array.isArray(s['oneOf'])) return (s['oneOf'] as JsonSchema[]).map(typeOf).join(' or ');
  if ('const' in s) return `\`${JSON.stringify(s['const'])}\``;
  if (Array.isArray(s['enum'])) return `one of ${(s['enum'] as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}`;
  const types = ([] as string[]).concat((s['type'] as string | string[] | undefined) ?? 'any');
  const one = (t: string): string => {
    if (t === 'array') return `array of ${s['items'] ? typeOf(s['items'] as JsonSchema) : 'any'}`;
    if (t === 'string' && s['format']) return `string (${String(s['format'])})`;
    if (t === 'integer' && (s['minimum'] !== undefined || s['maximum'] !== undefined)) return `integer${s['minimum'] !== undefined ? ` ≥ ${String(s['minimum'])}` : ''}${s['maximum'] !== undefined ? ` ≤ ${String(s['maximum'])}` : ''}`;
    return t;
  };
  return types.map(one).join(' or ');
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** fieldsTable — the top-level fields of an object schema: name, type, whether it is always there, what it is. */
function fieldsTable(s: JsonSchema): string[] {
  const properties = (s['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s['required'] ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) return [s['additionalProperties'] === false ? '`{}` — nothing.' : `an object (${typeOf(s)}).`];
  return [
    '| field | type | presence | meaning |',
    '|---|---|---|---|',
    ...names.map((n) => `| \`${n}\` | ${cell(typeOf(properties[n]!))} | ${required.has(n) ? 'required' : 'optional'} | ${cell(String(properties[n]!['description'] ?? ''))} |`),
  ];
}

/** commandCatalogueMarkdown — docs/commands.md: every command by owning service, its request and reply. */
export function commandCatalogueMarkdown(): string {
  const names = Object.keys(COMMAND_SCHEMAS) as CommandName[];
  const owners: (ServiceName | 'every service')[] = [...ServiceNames.filter((s) => names.some((n) => !n.startsWith('approvals.') && n !== 'service.status' && commandAnswerers(n)[0] === s)), 'every service'];
  const out: string[] = [
    '# Commands',
    '',
    '<!-- Generated from libs/contracts/src/command-schemas/ — do not edit by hand. Regenerate: UPDATE_DOCS=1 NODE_OPTIONS=--experimental-vm-modules npx jest libs/contracts/src/command-catalogue.spec.ts -->',
    '',
    'Every command a service answers on its queue `nodes-manager.<service>` (request/reply; [architecture.md](architecture.md#commands)), with',
    'what it takes and answers. The JSON Schemas in libs/contracts (`COMMAND_SCHEMAS`) are checked at run time: a request',
    'where it is sent and where it is handled (`VALIDATION_FAILED` naming the field, `in: command`; a 400 at the gateway),',
    'a reply where it is produced and, by a caller whose schemas are not the producer\'s (another version), where it is',
    'received (a reply that breaks its schema is logged as an error and the call fails). A request is closed: an unknown',
    'field is refused. A reply is open: a reader ignores fields it does not',
    'know. Only the top-level fields are listed here; the schemas hold the rest.',
    '',
  ];
  for (const owner of owners) {
    const mine = names.filter((n) => (owner === 'every service' ? n === 'service.status' || n.startsWith('approvals.') : !n.startsWith('approvals.') && n !== 'service.status' && commandAnswerers(n)[0] === owner));
    out.push(`## ${owner}`, '');
    for (const name of mine) {
      const s = COMMAND_SCHEMAS[name];
      const answered = owner === 'every service' ? ` Answered by ${commandAnswerers(name).join(', ')}, each under its own pattern.` : '';
      const item = ((s.reply['properties'] ?? {}) as Record<string, JsonSchema>)['items']?.['items'] as JsonSchema | undefined;
      out.push(`### \`${travelsAs(name)}\``, '', `${s.summary}${answered}`, '', '**Request**', '', ...fieldsTable(s.request), '', '**Reply**', '', ...fieldsTable(s.reply), '');
      if (item?.['properties']) out.push('Each of `items`:', '', ...fieldsTable(item), '');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}
