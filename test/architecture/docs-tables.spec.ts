// The tables of docs/design.md that say what each service owns are the code's, not a copy kept by hand: the services
// table's tables, commands and events, the Data section's tables and the controllers table's rows are generated here
// from the entities of each service, the command catalogue (COMMAND_OWNER, approval owners), the publishers of each
// event (EVENT_SOURCES) and the controllers each service runs (CONTROLLER_OWNER, which libs/platform's Controllers
// enforces). A table that differs fails this test; `UPDATE_DOCS=1` writes the generated one (the prose columns — what a
// service does, a controller's keys, triggers and timing — are kept from the page). Every other page's table headed
// `| controller |` lists one service's controllers: all that it alone runs, and no other. The README's route table is generated from the gateway's routes the same way
// (services/api-gateway/test/openapi.int.ts).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getMetadataArgsStorage } from 'typeorm';
import { APPROVAL_OWNERS, approvalPattern, COMMAND_OWNER, CONTROLLER_OWNER, controllerOwners, controllersOf, EVENT_SOURCES, ServiceNames, type ApprovalVerb, type EventType, type ServiceName } from '@nodes-manager/contracts';
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

const CONTROLLERS_HEADER = '| service | controller | keys | triggers | timing |';
/** The controller a row's controller cell names: its first code span. */
const controllerIn = (cell: string): string | undefined => /`([^`]+)`/.exec(cell)?.[1];

/** generatedControllersTable — a row per controller of CONTROLLER_OWNER, by service; its prose cells from `kept` (by controller). */
function generatedControllersTable(kept: ReadonlyMap<string, readonly string[]>): string[] {
  return [
    CONTROLLERS_HEADER,
    '|---|---|---|---|---|',
    // A row per controller, under the first service that runs it; one several services run names them all.
    ...[...new Set(ServiceNames.flatMap((s) => controllersOf(s)))].map((c) => {
      const [cell, ...prose] = kept.get(c) ?? [`\`${c}\``, '(its keys)', '(what enqueues them)', '(when)'];
      return `| ${controllerOwners(c).join(', ')} | ${cell} | ${prose.join(' | ')} |`;
    }),
  ];
}
const keptControllerRows = (rows: readonly string[][]) => new Map(rows.filter((r) => controllerIn(r[1] ?? '')).map((r) => [controllerIn(r[1]!)!, r.slice(1)]));

/** replaceTable — `page` with the table headed `header` replaced by `make` of its rows. */
function replaceTable(page: string, header: string, make: (rows: string[][]) => string[]): string {
  const t = tableIn(page, header);
  const lines = page.split('\n');
  lines.splice(t.start, t.end - t.start, ...make(t.rows));
  return lines.join('\n');
}

/** regenerate — the page with its three tables replaced by the code's. */
function regenerate(page: string): string {
  const services = replaceTable(page, SERVICES_HEADER, (rows) => generatedServicesTable(new Map(rows.map((r) => [r[0]!, r[1]!]))));
  const data = replaceTable(services, DATA_HEADER, () => generatedDataTable());
  return replaceTable(data, CONTROLLERS_HEADER, (rows) => generatedControllersTable(keptControllerRows(rows)));
}

/** controllerTables — every table of docs/ headed `| controller |` outside design.md: its page and the controllers it names. */
function controllerTables(): { page: string; names: string[] }[] {
  return readdirSync('docs')
    .filter((f) => f.endsWith('.md') && `docs/${f}` !== DESIGN)
    .flatMap((f) => {
      const lines = readFileSync(`docs/${f}`, 'utf8').split('\n');
      return lines.flatMap((l, i) => {
        if (!l.startsWith('| controller |')) return [];
        const names: string[] = [];
        for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) names.push(controllerIn(lines[j]!.split('|')[1]!) ?? '?');
        return [{ page: `docs/${f}`, names }];
      });
    });
}

/**
 * oneServicesControllers — whether `names` are the controllers of one service: every one that service alone runs, and
 * none it does not (one that several services run, `retention`, may be left to its own page).
 */
const oneServicesControllers = (names: readonly string[]): boolean =>
  ServiceNames.some((s) => {
    const own = controllersOf(s).filter((c) => controllerOwners(c).length === 1);
    const all = controllersOf(s);
    return own.every((c) => names.includes(c)) && names.every((n) => (all as string[]).includes(n)) && new Set(names).size === names.length;
  });

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

  it("has the code's controllers table: a row per controller each service runs (regenerate with UPDATE_DOCS=1)", () => {
    const t = tableIn(page, CONTROLLERS_HEADER);
    expect(page.split('\n').slice(t.start, t.end)).toEqual(generatedControllersTable(keptControllerRows(t.rows)));
  });

  it.each([
    ['a controller dropped', (p: string) => p.replace(/^\| karpenter-gateway \| `steering`[^\n]*\n/m, '')],
    ['a controller that does not run', (p: string) => p.replace(/^(\| uncordon \| `pause-expiry`[^\n]*\n)/m, '$1| uncordon | `sweeper` | one | a timer | hourly |\n')],
  ])('fails on a planted drift of the controllers table: %s', (_what, drift) => {
    const planted = drift(page);
    expect(planted).not.toBe(page);
    const t = tableIn(planted, CONTROLLERS_HEADER);
    expect(planted.split('\n').slice(t.start, t.end)).not.toEqual(generatedControllersTable(keptControllerRows(t.rows)));
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

describe('the controller tables of the other pages', () => {
  it('each list one service\'s controllers, every one it alone runs and no other', () => {
    const tables = controllerTables();
    expect(tables.length).toBeGreaterThan(0);
    expect(tables.filter((t) => !oneServicesControllers(t.names))).toEqual([]);
  });

  it.each([
    ['a controller missing', ['auto-uncordon', 'rebalance-ledger', 'drain']],
    ['an unknown controller', ['node-sync', 'pod-purge', 'sweeper']],
  ])('fails on a planted drift: %s', (_what, names) => {
    expect(oneServicesControllers(names)).toBe(false);
  });
});
