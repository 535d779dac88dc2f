import { useMemo, useState } from 'react';
import { useApp, useDebounced, useLive, useNow, useResource } from '../context';
import { BASIS_WORDS, count, dateTime, duration, pct, usd, words } from '../format';

/** SteeringPools — `GET /api/v1/steering/pools` (docs/steering.md). */
interface SteeringPools {
  mode: 'off' | 'plan' | 'execute';
  karpenterInstalled: boolean;
  decidedAt: string | null;
  asOf: string;
  disruptionCostUsd: number;
  pools: PoolRow[];
  nodePools: { nodePool: string; status: string; sentence: string; changes: string[]; fallback: boolean; plannedAt: string | null; excluded: { kind: string; value: string; sentence: string }[]; drift?: { total: number; onPurpose: number; collateral: number; sentence: string } | null }[];
}
interface PoolRow {
  instanceType: string;
  zone: string;
  state: 'healthy' | 'watch' | 'avoid';
  since: string;
  sentence: string;
  samples: number;
  interrupted: number;
  share: number | null;
  interval95: [number, number] | null;
  leadTimeMinutes: { samples: number; median: number; p90: number } | null;
  spotUsdPerHour: number | null;
  onDemandUsdPerHour: number | null;
  expectedUsdPerHour: number | null;
  expectedBasis: string;
  restoreAt: string | null;
  restoreInSeconds: number | null;
  /** Spot nodes running in the pool now; null when node-sync did not answer. */
  nodes: number | null;
}

type Shown = 'fleet' | 'attention' | 'all';
const SHOWN_WORDS: Record<Shown, string> = { fleet: 'pools in use and not healthy', attention: 'avoided and watched', all: 'the whole catalogue' };
const inUse = (p: PoolRow) => (p.nodes ?? 0) > 0;
const shown = (only: Shown, p: PoolRow) => only === 'all' || p.state !== 'healthy' || (only === 'fleet' && inUse(p));
const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

/** poolsSummary — the line over the table: the pools in use, avoided and watched, and how many more the catalogue holds behind the filter. */
export function poolsSummary(pools: readonly PoolRow[]): string {
  const known = pools.every((p) => p.nodes !== null);
  const avoid = pools.filter((p) => p.state === 'avoid').length;
  const watch = pools.filter((p) => p.state === 'watch').length;
  const rest = pools.filter((p) => !shown('fleet', p)).length;
  const used = known ? `${plural(pools.filter(inUse).length, 'pool', 'pools')} in use` : 'pools in use unknown (node-sync did not answer)';
  return `${used}, ${count(avoid)} avoided, ${count(watch)} watched — ${plural(rest, 'more pool', 'more')} in the catalogue`;
}

const STATE_WORDS: Record<PoolRow['state'], string> = { avoid: 'Avoid', watch: 'Watch', healthy: 'Healthy' };
const MODE_WORDS: Record<SteeringPools['mode'], string> = {
  off: 'Steering is off: pools are not judged.',
  plan: 'Steering plans only: nothing is written to the NodePools.',
  execute: 'Steering writes its NodePool changes, through approvals and maintenance windows.',
};
const STATUS_WORDS: Record<string, string> = {
  nothing_to_do: 'nothing to change',
  planned: 'planned, not written',
  paused: 'held: the fleet is paused',
  outside_window: 'waiting for its maintenance window',
  awaiting_approval: 'waiting for approval',
  written: 'written',
  conflict: 'changed meanwhile: planned again',
  failed: 'failed',
};
const CHANGE_WORDS: Record<string, string> = {
  narrow: 'narrowed',
  restore: 'restored',
  'fallback-to-on-demand': 'falls back to on-demand',
  'return-to-spot': 'returns to Spot',
  'replan-after-foreign-edit': 'planned again around someone else’s edit',
};

/** PoolsView — every Spot pool steering judges: health and why, share and interval, lead time, price and expected cost, the countdown to its restore; and what steering does to each NodePool. Live. */
export function PoolsView() {
  const { api } = useApp();
  const res = useResource((signal) => api.get<SteeringPools>('/api/v1/steering/pools', signal), [api]);
  const reload = useDebounced(res.reload, 500);
  useLive((t) => t === 'pool.health.changed' || t === 'nodepool.steered', reload, res.reload);
  const now = useNow(1000);
  // Opens on the pools the fleet runs in and the ones not healthy; the rest of the catalogue is behind the filter.
  const [only, setOnly] = useState<Shown>('fleet');
  const d = res.data;
  const summary = useMemo(() => (d ? poolsSummary(d.pools) : ''), [d]);
  const rows = (d?.pools ?? []).filter((p) => shown(only, p));
  // The countdown runs from the answer's time on the viewer's clock.
  const elapsed = d ? Math.max(0, now - Date.parse(d.asOf)) : 0;

  return (
    <section className="view" aria-labelledby="steer-title">
      <div className="view-head">
        <h1 id="steer-title">Spot pools</h1>
        {d && (
          <span className="muted" data-testid="pools-summary">
            {summary} · last judged {d.decidedAt ? dateTime(d.decidedAt) : 'not yet'}
          </span>
        )}
        <label className="select">
          <span>Show</span>
          <select value={only} onChange={(e) => setOnly(e.target.value as Shown)}>
            {(Object.keys(SHOWN_WORDS) as Shown[]).map((k) => (
              <option key={k} value={k}>
                {SHOWN_WORDS[k]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {res.error && <p className="notice error">{res.error}</p>}
      {d && (
        <p className="muted" data-testid="steering-mode">
          {MODE_WORDS[d.mode]} Expected cost counts {usd(d.disruptionCostUsd)} per interruption.
        </p>
      )}
      {d && d.nodePools.length > 0 && (
        <div className="cards" data-testid="steering-nodepools">
          {d.nodePools.map((np) => (
            <div className="card" key={np.nodePool}>
              <div className="card-label">NodePool {np.nodePool}</div>
              <div className="card-value small-value">{np.changes.length > 0 ? np.changes.map((c) => words(CHANGE_WORDS, c)).join(', ') : 'as its owner wrote it'}</div>
              <div className="muted small-text">
                {words(STATUS_WORDS, np.status)}
                {np.plannedAt ? ` · ${dateTime(np.plannedAt)}` : ''}
                {np.fallback ? ' · on on-demand' : ''}
              </div>
              {np.excluded.length > 0 && <div className="small-text">Keeps out {np.excluded.map((e) => `${e.kind === 'zone' ? 'zone' : 'type'} ${e.value}`).join(', ')}</div>}
              {np.sentence && <div className="muted small-text">{np.sentence}</div>}
              {np.drift && np.drift.total > 0 && (
                <div className="small-text" data-testid="drift-forecast">
                  Drifts {plural(np.drift.total, 'running node', 'running nodes')}: {count(np.drift.onPurpose)} off avoided pools, {count(np.drift.collateral)} elsewhere
                </div>
              )}
            </div>
          ))}
        </div>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Pool</th>
            <th scope="col">Health</th>
            <th scope="col" className="num">
              Spot nodes
            </th>
            <th scope="col" className="num">
              Followed by an interruption
            </th>
            <th scope="col" className="num">
              Lead time
            </th>
            <th scope="col" className="num">
              Spot
            </th>
            <th scope="col" className="num">
              Expected cost
            </th>
            <th scope="col">Restore</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => (
            <tr key={`${p.instanceType}/${p.zone}`} data-testid="pool-row" data-state={p.state} data-in-use={inUse(p) ? 'yes' : 'no'}>
              <td className="nowrap">
                <span className="mono">{p.instanceType}</span> · {p.zone}
              </td>
              <td>
                <span className={`badge pool-${p.state}`}>{STATE_WORDS[p.state]}</span> <span className="muted small-text">since {dateTime(p.since)}</span>
                <div className="small-text">{p.sentence}</div>
              </td>
              <td className="num" data-testid="pool-nodes">
                {p.nodes === null ? '—' : p.nodes === 0 ? <span className="muted">none</span> : count(p.nodes)}
              </td>
              <td className="num">
                {p.share === null ? <span className="muted">no follow-up known</span> : pct(p.share)}
                <div className="muted small-text">
                  {p.samples > 0 ? `${p.interrupted} of ${p.samples}` : ''}
                  {p.interval95 ? ` · 95% ${pct(p.interval95[0])}–${pct(p.interval95[1])}` : ''}
                </div>
              </td>
              <td className="num">{p.leadTimeMinutes ? duration(p.leadTimeMinutes.median * 60_000) : '—'}</td>
              <td className="num">{p.spotUsdPerHour === null ? '—' : `${usd(p.spotUsdPerHour, 4)}/h`}</td>
              <td className="num">
                {p.expectedUsdPerHour === null ? '—' : `${usd(p.expectedUsdPerHour, 4)}/h`}
                <div className="muted small-text">{p.expectedBasis === 'unknown' ? 'no interruption figure' : words(BASIS_WORDS, p.expectedBasis)}</div>
              </td>
              <td data-testid="restore">
                {p.state !== 'avoid' ? (
                  '—'
                ) : p.restoreInSeconds === null ? (
                  <span className="muted">after enough calm samples</span>
                ) : (
                  <>
                    {p.restoreInSeconds * 1000 - elapsed > 0 ? `in ${duration(p.restoreInSeconds * 1000 - elapsed)}` : 'due now'}
                    <div className="muted small-text">earliest {p.restoreAt ? dateTime(p.restoreAt) : ''}</div>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {d && rows.length === 0 && <p className="muted">{d.pools.length === 0 ? 'No pool judged yet: steering needs rebalance recommendations or prices.' : only === 'attention' ? 'No pool avoided or watched.' : 'No pool in use and none avoided or watched: choose “the whole catalogue” to see every pool.'}</p>}
    </section>
  );
}
