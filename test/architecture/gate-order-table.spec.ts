// docs/approvals.md's table of the one disruption gate is the code's, not a copy kept by hand: each disruptive action's
// row — what holds it, after the pause: its approval kind and its window rule — is generated here from ACTION_GATES
// (libs/disruption/src/admit.ts), whose behaviour `admit.spec.ts` table-tests. A table that differs fails this test;
// `UPDATE_DOCS=1` writes the generated one.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { DisruptiveActions } from '@nodes-manager/contracts';
import { ACTION_GATES, type ActionGates } from '@nodes-manager/disruption';

const PAGE = 'docs/approvals.md';
const HEADER = '| action | what | 1. the pause | 2. the approval (`DISRUPTION_APPROVAL` kind) | 3. the window |';

const pauseCell = (g: ActionGates, action: string): string =>
  action === 'uncordon' ? 'only a pause of scope `all`' : g.unknownHolds ? 'holds it, and so does an unknown pause state' : 'holds it';
const approvalCell = (g: ActionGates): string => (g.approval ? `\`${g.approval}\`: under \`manual\` a request instead` : '— (never asked)');
const WINDOW: Record<ActionGates['window'], string> = {
  always: 'holds its start, and an approved one when carried out',
  'when-approved': 'holds an approved one only',
  never: '—',
};

/** generated — the table of the code. */
const generated = (): string[] => [
  HEADER,
  '|---|---|---|---|---|',
  ...DisruptiveActions.map((a) => {
    const g = ACTION_GATES[a];
    return `| \`${a}\` | ${g.what} | ${pauseCell(g, a)} | ${approvalCell(g)} | ${WINDOW[g.window]} |`;
  }),
];

/** tableIn — where the table headed HEADER is in `page`: from its header to the first line that is not a row. */
function tableIn(page: string): { start: number; end: number } {
  const lines = page.split('\n');
  const start = lines.indexOf(HEADER);
  if (start < 0) throw new Error(`${PAGE} has no table headed ${HEADER}`);
  let end = start + 2;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  return { start, end };
}
const tableOf = (page: string): string[] => {
  const t = tableIn(page);
  return page.split('\n').slice(t.start, t.end);
};

if (process.env['UPDATE_DOCS'] === '1') {
  const page = readFileSync(PAGE, 'utf8');
  const t = tableIn(page);
  const lines = page.split('\n');
  lines.splice(t.start, t.end - t.start, ...generated());
  writeFileSync(PAGE, lines.join('\n'));
}

describe('docs/approvals.md: the one gate', () => {
  const page = readFileSync(PAGE, 'utf8');

  it("has the code's order table, one row per disruptive action (regenerate with UPDATE_DOCS=1)", () => {
    expect(tableOf(page)).toEqual(generated());
  });

  it.each([
    ['a window rule changed by hand', (p: string) => p.replace('| `fence` | ', '| `fence` | x').replace('holds an approved one only', 'holds its start')],
    ['an action left out', (p: string) => p.replace(/^\| `steer` \| steering's[^\n]*\n/m, '')],
  ])('fails on a planted drift: %s', (_what, drift) => {
    const planted = drift(page);
    expect(planted).not.toBe(page);
    expect(tableOf(planted)).not.toEqual(generated());
  });
});
