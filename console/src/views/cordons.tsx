import { useEffect, useRef, useState } from 'react';
import { useApp, useDebounced, useLive, useNow } from '../context';
import { ago, clock, dateTime, duration, reasonWords } from '../format';
import type { Cordon } from '../types';

interface Uncordoned {
  node: string;
  at: string;
  actor?: string;
  reason?: string;
}

const VERDICT_WORDS = { uncordon: 'uncordon now', wait: 'waiting', skip: 'left cordoned' } as const;

/**
 * CordonsView — every cordoned node with auto-uncordon's verdict and why, the evidence it rests on, and for the
 * waiting ones a live countdown to the uncordon. A `node.uncordoned` event flips the row at once; other node events
 * re-read the verdicts.
 */
export function CordonsView() {
  const { api } = useApp();
  const now = useNow(1000);
  const [cordons, setCordons] = useState<Cordon[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [verdict, setVerdict] = useState<string>('');
  const uncordoned = useRef(new Map<string, Uncordoned>());
  const [, force] = useState(0);

  const load = useRef(async () => {
    try {
      const all: Cordon[] = [];
      await api.pages<Cordon>('/api/v1/cordons', (items) => all.push(...items));
      // A node cordoned again after we saw it uncordoned is a new story: show its new verdict.
      for (const c of all) uncordoned.current.delete(c.node);
      setCordons(all);
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
  }).current;
  const reload = useDebounced(() => void load(), 400);
  useEffect(() => {
    void load();
  }, [load]);
  // A waiting node's verdict changes when its time comes: re-read just after the earliest countdown ends.
  useEffect(() => {
    const next = Math.min(...(cordons ?? []).filter((c) => c.uncordonAt).map((c) => Date.parse(c.uncordonAt!)));
    if (!Number.isFinite(next)) return;
    const t = setTimeout(() => void load(), Math.max(1000, next - Date.now() + 1500));
    return () => clearTimeout(t);
  }, [cordons, load]);

  useLive(
    (t) => t === 'node.uncordoned' || t === 'node.changed' || t === 'node.added' || t === 'node.removed' || t.startsWith('node.drain.'),
    (e) => {
      if (e.type === 'node.uncordoned') {
        const d = e.data as { node: string; uncordonedAt?: string; description?: string };
        uncordoned.current.set(d.node, { node: d.node, at: d.uncordonedAt ?? e.time, ...(e.actor ? { actor: e.actor } : {}), ...(d.description ? { reason: d.description } : {}) });
        force((x) => x + 1);
      }
      reload();
    },
    () => void load(),
  );

  const rows = (cordons ?? []).filter((c) => !verdict || c.decision === verdict);
  const done = [...uncordoned.current.values()].filter((u) => !(cordons ?? []).some((c) => c.node === u.node));
  const counts = { uncordon: 0, wait: 0, skip: 0 };
  for (const c of cordons ?? []) counts[c.decision]++;

  return (
    <section className="view" aria-labelledby="cordons-title">
      <div className="view-head">
        <h1 id="cordons-title">Cordons</h1>
        <span className="muted">
          {cordons ? `${cordons.length} cordoned · ${counts.wait} waiting · ${counts.uncordon} to uncordon now · ${counts.skip} left cordoned` : 'loading…'}
        </span>
        <label className="select">
          <span>Verdict</span>
          <select value={verdict} onChange={(e) => setVerdict(e.target.value)}>
            <option value="">all</option>
            <option value="wait">waiting</option>
            <option value="uncordon">uncordon now</option>
            <option value="skip">left cordoned</option>
          </select>
        </label>
      </div>
      {error && <p className="notice error">{error}</p>}
      <table className="cordons">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Verdict</th>
            <th scope="col">Why</th>
            <th scope="col">Cordoned by</th>
            <th scope="col">Cordoned</th>
            <th scope="col">Ready since</th>
            <th scope="col">Uncordon in</th>
          </tr>
        </thead>
        <tbody>
          {done.map((u) => (
            <tr key={`done-${u.node}`} data-testid="cordon-row" data-node={u.node} data-verdict="uncordoned" className="flipped">
              <td className="mono">
                <a href={`#/fleet/${encodeURIComponent(u.node)}`}>{u.node}</a>
              </td>
              <td>
                <span className="badge verdict-done">uncordoned</span>
              </td>
              <td>
                Uncordoned at {clock(u.at)}. {u.reason ?? 'A Spot rebalance cordon, Ready through the grace period.'}
              </td>
              <td>{u.actor ?? '—'}</td>
              <td colSpan={2} className="muted">
                {ago(u.at, now)}
              </td>
              <td>done</td>
            </tr>
          ))}
          {rows.map((c) => {
            const left = c.uncordonAt ? Date.parse(c.uncordonAt) - now : undefined;
            return (
              <tr key={c.node} data-testid="cordon-row" data-node={c.node} data-verdict={c.decision}>
                <td className="mono">
                  <a href={`#/fleet/${encodeURIComponent(c.node)}`}>{c.node}</a>
                </td>
                <td>
                  <span className={`badge verdict-${c.decision}`}>{VERDICT_WORDS[c.decision]}</span>
                </td>
                <td>
                  {reasonWords(c.reason, c.description)}
                  {c.description && <div className="muted small-text">{c.description}</div>}
                  {c.evidence.blockingTaints?.length ? <div className="muted small-text mono">{c.evidence.blockingTaints.join(', ')}</div> : null}
                </td>
                <td>
                  {c.evidence.cordonManager ?? 'unknown'}
                  {c.evidence.rebalanceTaint ? <div className="muted small-text">rebalance taint</div> : null}
                </td>
                <td title={dateTime(c.evidence.cordonedSince)}>{ago(c.evidence.cordonedSince, now)}</td>
                <td title={dateTime(c.evidence.readySince)}>{c.evidence.ready === false ? 'not Ready' : dateTime(c.evidence.readySince)}</td>
                <td data-testid="countdown" className="num">
                  {c.decision === 'wait' && left !== undefined ? (left > 0 ? duration(left) : 'due now') : c.decision === 'uncordon' ? 'next cycle' : '—'}
                  {c.decision === 'wait' && c.evidence.effectiveGraceMinutes !== undefined && (
                    <div className="muted small-text">
                      grace {duration(c.evidence.effectiveGraceMinutes * 60_000)}
                      {c.evidence.flapCount ? `, backed off ×${2 ** c.evidence.flapCount}` : ''}
                    </div>
                  )}
                </td>
              </tr>
            );
          })}
          {cordons && rows.length === 0 && done.length === 0 && (
            <tr>
              <td colSpan={7} className="muted">
                No cordoned node{verdict ? ' with this verdict' : ''}.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
