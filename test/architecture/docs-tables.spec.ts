// The tables of docs/design.md that say what each service owns are the code's, not a copy kept by hand: the services
// table's tables, commands and events, and the Data section's tables, are generated here from the entities of each
// service, the command catalogue (COMMAND_OWNER, approval owners) and the publishers of each event (EVENT_SOURCES).
// A table that differs fails this test; `UPDATE_DOCS=1` writes the generated one (the "what it does" column, the only
// prose, is kept from the page). The README's route table is generated from the gateway's routes the same way
// (services/api-gateway/test/openapi.int.ts).
import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { getMetadataArgsStorage } from 'typeorm';
import { APPROVAL_OWNERS, approvalPattern, COMMAND_OWNER, EVENT_SOURCES, ServiceNames, type ApprovalVerb, type EventType, type ServiceName } from '@nodes-manager/contracts';
import { entities as nodeSyncEntities } from '../../services/node-sync/src/adapters/outbound/node-sync.entities.js';
import { entities as uncordonEntities } from '../../services/uncordon/src/adapters/outbound/uncordon.entities.js';
import { entities as schedulerEntities } from '../../services/scheduler-scoring/src/adapters/outbound/scheduler-scoring.entities.js';
import { entities as karpenterEntities } from '../../services/karpenter-gateway/src/adapters/outbound/karpenter-gateway.entities.js';
import { entities as spotEntities } from '../../services/spot-advisor/src/adapters/outbound/spot-advisor.entities.js';

const DESIGN = 'docs/design.md';
const ENTITIES: Record<ServiceName, readonly unknown[]> = {
  'api-gateway': [],
  'node-sync': nodeSyncEntities,
  uncordon: uncordonEntities,
  'scheduler-scoring': schedulerEntities,
  'karpenter-gateway': karpenterEntities,
  'spot-advisor': spotEntities,
};
const VERBS: readonly ApprovalVerb[] = ['list', 'get', 'approve', 'reject'];

const code = (names: readonly string[]): string => (names.length ? names.map((n) => `\`${n}\``).join(', ') : '—');

/** What the code says each service owns. */
function owned(service: ServiceName) {
  const tables = getMetadataArgsStorage()
    .tables.filter((t) => ENTITIES[service].includes(t.target))
    .map((t) => t.name!);
  const commands = [
    ...Object.entries(COMMAND_OWNER).filter(([, s]) => s === service).map(([p]) => p),
    ...(Object.values(APPROVAL_OWNERS).includes(service) ? VERBS.map((v) => approvalPattern(service, v)) : []),
  ];
  const events = (Object.entries(EVENT_SOURCES) as [EventType, ServiceName | readonly ServiceName[]][])
    .filter(([, s]) => ([] as ServiceName[]).concat(s).includes(service))
    .map(([t]) => t);
  return { tables, commands, events };
}

/** rowsOf — the rows of the Markdown table whose header line is `header`: the lines, from the header to the first non-row. */
function tableIn(page: string, header: string): { start: number; end: number; rows: string[][] } {
  const lines = page.split('\n');
  const start = lines.indexOf(header);
  if (start < 0) throw new Error(`${DESIGN} has no table headed ${header}`);
  let end = start + 2;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  const rows = lines.slice(start + 2, end).map((l) => l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));
  return { start, end, rows };
}

const SERVICES_HEADER = '| service | what it does | tables it owns | commands it answers | events it publishes |';
const DATA_HEADER = '| service | tables |';

/** generatedServicesTable — the services table of the code, with each service's "what it does" from `described`. */
function generatedServicesTable(described: ReadonlyMap<string, string>): string[] {
  return [
    SERVICES_HEADER,
    '|---|---|---|---|---|',
    ...ServiceNames.map((s) => {
      const o = owned(s);
      return `| ${s} | ${described.get(s) ?? '(say what it does)'} | ${code(o.tables)} | ${code(o.commands)} | ${code(o.events)} |`;
    }),
  ];
}

const generatedDataTable = (): string[] => [DATA_HEADER, '|---|---|', ...ServiceNames.filter((s) => ENTITIES[s].length).map((s) => `| ${s} | ${code(owned(s).tables)} |`)];

/** regenerate — the page with both tables replaced by the code's. */
function regenerate(page: string): string {
  const services = tableIn(page, SERVICES_HEADER);
  const described = new Map(services.rows.map((r) => [r[0]!, r[1]!]));
  const lines = page.split('\n');
  lines.splice(services.start, services.end - services.start, ...generatedServicesTable(described));
  const withServices = lines.join('\n');
  const data = tableIn(withServices, DATA_HEADER);
  const again = withServices.split('\n');
  again.splice(data.start, data.end - data.start, ...generatedDataTable());
  return again.join('\n');
}

if (process.env['UPDATE_DOCS'] === '1') writeFileSync(DESIGN, regenerate(readFileSync(DESIGN, 'utf8')));

describe('docs/design.md', () => {
  const page = readFileSync(DESIGN, 'utf8');

  it("has the code's services table: each service's tables, commands and events (regenerate with UPDATE_DOCS=1)", () => {
    const t = tableIn(page, SERVICES_HEADER);
    expect(page.split('\n').slice(t.start, t.end)).toEqual(generatedServicesTable(new Map(t.rows.map((r) => [r[0]!, r[1]!]))));
  });

  it("has the code's Data table (regenerate with UPDATE_DOCS=1)", () => {
    const t = tableIn(page, DATA_HEADER);
    expect(page.split('\n').slice(t.start, t.end)).toEqual(generatedDataTable());
  });

  it.each([
    ['a command dropped from a row', (p: string) => p.replace('`nodes.list`, ', '')],
    ['an event dropped from a row', (p: string) => p.replace(', `nodes.synced`', '')],
    ['a table dropped from a row', (p: string) => p.replace('| `nodes`, `pods`, `node_lifetimes` | `nodes.list`', '| `nodes`, `pods` | `nodes.list`')],
  ])('fails on a planted drift: %s', (_what, drift) => {
    const planted = drift(page);
    expect(planted).not.toBe(page);
    const t = tableIn(planted, SERVICES_HEADER);
    expect(planted.split('\n').slice(t.start, t.end)).not.toEqual(generatedServicesTable(new Map(t.rows.map((r) => [r[0]!, r[1]!]))));
    expect(regenerate(planted)).toBe(regenerate(page));
  });

  it.each([
    ['a table dropped from a row', (p: string) => p.replace('| spot-advisor | `spot_price_samples`, `provisioning_requests` |', '| spot-advisor | `spot_price_samples` |')],
    ['a row dropped', (p: string) => p.replace(/^\| karpenter-gateway \| `[^\n]*\n/m, '')],
  ])('fails on a planted drift of the Data table: %s', (_what, drift) => {
    const planted = drift(page);
    expect(planted).not.toBe(page);
    const t = tableIn(planted, DATA_HEADER);
    expect(planted.split('\n').slice(t.start, t.end)).not.toEqual(generatedDataTable());
    expect(regenerate(planted)).toBe(regenerate(page));
  });
});
