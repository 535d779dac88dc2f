import { useEffect, useMemo, useRef, useState } from 'react';
import { useApp, useLive, useNow } from '../context';
import { ago, dateTime, EVENT_WORDS, reasonWords, usd } from '../format';
import type { Decision, DrainOperation, ScalingEvent } from '../types';
import type { StreamEvent } from '../stream';

/**
 * Entry — one line of the timeline, whichever source it came from. `key` is its id in its source (`ev-<event id>`,
 * `se-<scaling event id>`); `same`, when set, names the happening across sources — an uncordon is both a
 * `node.uncordoned` event and a scaling event, of the same node at the same instant — so each shows once.
 */
interface Entry {
  key: string;
  same?: string;
  at: string;
  kind: 'uncordon' | 'drain' | 'plan' | 'nodepool' | 'other';
  title: string;
  subject?: string;
  detail?: string;
  actor?: string;
  drainId?: string;
}

/** The instant of an uncordon (its event's time is its scaling event's creation time), to the millisecond. */
const sameUncordon = (node: string, at: string): string => `uncordon ${node} ${Date.parse(at)}`;

/**
 * distinct — each happening once: the first of the entries with the same key (an event the stream delivered twice,
 * a replay after a reconnect) or the same happening (the live event and the stored row a refresh brought).
 */
function distinct(entries: readonly Entry[]): Entry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    if (seen.has(e.key) || (e.same !== undefined && seen.has(e.same))) return false;
    seen.add(e.key);
    if (e.same !== undefined) seen.add(e.same);
    return true;
  });
}

const SHOWN_TYPES = (t: string) => t === 'node.uncordoned' || t.startsWith('node.drain.') || t.startsWith('optimize.') || t.startsWith('nodepool.') || t === 'instance.provisioned';
const KEEP = 300;

function fromScalingEvent(e: ScalingEvent): Entry {
  const drain = e.action.startsWith('drain');
  return {
    key: `se-${e.id}`,
    ...(e.action === 'uncordon' && !e.dryRun ? { same: sameUncordon(e.node, e.createdAt) } : {}),
    at: e.createdAt,
    kind: drain ? 'drain' : e.action === 'uncordon' ? 'uncordon' : 'other',
    title: `${e.action}${e.dryRun ? ' (dry run)' : ''}`,
    subject: e.node,
    detail: e.action === 'uncordon' && e.reason === 'UNCORDON' ? 'Reversed a Spot rebalance cordon: the node stayed Ready through the grace period.' : reasonWords(e.reason),
    actor: e.actor,
    ...(drain && e.operationId ? { drainId: e.operationId } : {}),
  };
}

function fromDecision(d: Decision): Entry {
  return { key: `dc-${d.id}`, at: d.createdAt, kind: 'plan', title: `${d.kind}: ${d.outcome.replace(/_/g, ' ')}`, subject: d.subject, detail: d.rationale, actor: d.actor };
}

function fromStream(e: StreamEvent): Entry {
  const d = (e.data ?? {}) as Record<string, unknown>;
  const kind: Entry['kind'] = e.type === 'node.uncordoned' ? 'uncordon' : e.type.startsWith('node.drain.') ? 'drain' : e.type.startsWith('optimize.') ? 'plan' : e.type.startsWith('nodepool.') ? 'nodepool' : 'other';
  let detail: string | undefined;
  if (e.type === 'optimize.planned') detail = `${(d['remove'] as unknown[] | undefined)?.length ?? 0} nodes to remove, saves ${usd(d['hourlySavingsUsd'] as number)}/h (${usd(d['monthlySavingsUsd'] as number, 0)}/month)${d['dryRun'] ? ', dry run' : ''}`;
  else if (e.type === 'optimize.executed') detail = `${(d['drained'] as unknown[] | undefined)?.length ?? 0} drained, ${(d['skipped'] as unknown[] | undefined)?.length ?? 0} skipped`;
  else if (e.type === 'nodepool.updated') detail = `changed ${Object.keys((d['patch'] as object | undefined) ?? {}).join(', ') || 'spec'}`;
  else if (typeof d['description'] === 'string') detail = d['description'];
  else if (typeof d['message'] === 'string') detail = d['message'];
  else if (typeof d['reason'] === 'string') detail = reasonWords(d['reason']);
  const subject = (d['node'] as string | undefined) ?? (d['nodePool'] as string | undefined) ?? e.subject;
  return {
    key: `ev-${e.id}`,
    ...(e.type === 'node.uncordoned' && subject ? { same: sameUncordon(subject, e.time) } : {}),
    at: e.time,
    kind,
    title: EVENT_WORDS[e.type] ?? e.type,
    subject,
    ...(detail ? { detail } : {}),
    ...(e.actor ? { actor: e.actor } : {}),
    ...(typeof d['operationId'] === 'string' ? { drainId: d['operationId'] } : {}),
  };
}

/**
 * ActivityView — what happened and who asked: uncordons and drains (scaling events), plans (the decision log), and
 * everything the stream brings while the page is open (NodePool changes, drain progress, executions).
 */
export function ActivityView() {
  const { api } = useApp();
  const now = useNow(5000);
  const [stored, setStored] = useState<Entry[]>([]);
  const [liveEntries, setLive] = useState<Entry[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [kind, setKind] = useState('');
  const load = useRef(async () => {
    try {
      const [events, decisions] = await Promise.all([api.get<{ items: ScalingEvent[] }>('/api/v1/events?limit=100'), api.get<{ items: Decision[] }>('/api/v1/decisions?limit=100')]);
      setStored([...events.items.map(fromScalingEvent), ...decisions.items.filter((d) => d.outcome !== 'none').map(fromDecision)]);
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
  }).current;
  useEffect(() => {
    void load();
  }, [load]);
  useLive(SHOWN_TYPES, (e) => setLive((l) => (l.some((x) => x.key === `ev-${e.id}`) ? l : [fromStream(e), ...l].slice(0, KEEP))), () => void load());

  const entries = useMemo(() => {
    // Stored rows first: where a live event and a stored row are the same happening, the stored one is kept.
    const all = distinct([...stored, ...liveEntries]).sort((a, b) => b.at.localeCompare(a.at));
    return kind ? all.filter((e) => e.kind === kind) : all;
  }, [stored, liveEntries, kind]);
  // The latest entry per drain carries its progress.
  const drains = useMemo(() => [...new Set(entries.filter((e) => e.drainId).map((e) => e.drainId!))].slice(0, 10), [entries]);

  return (
    <section className="view" aria-labelledby="activity-title">
      <div className="view-head">
        <h1 id="activity-title">Activity</h1>
        <span className="muted">{entries.length} entries, newest first</span>
        <label className="select">
          <span>Show</span>
          <select value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="">everything</option>
            <option value="uncordon">uncordons</option>
            <option value="drain">drains</option>
            <option value="plan">plans</option>
            <option value="nodepool">NodePool changes</option>
          </select>
        </label>
      </div>
      {error && <p className="notice error">{error}</p>}
      {drains.length > 0 && (
        <div className="drains">
          <h2>Drains</h2>
          {drains.map((id) => (
            <DrainProgress key={id} id={id} />
          ))}
        </div>
      )}
      <ol className="timeline" data-testid="activity">
        {entries.map((e) => (
          <li key={e.key} className={`kind-${e.kind}`} data-testid="activity-entry" data-subject={e.subject}>
            <time dateTime={e.at} title={dateTime(e.at)}>
              {ago(e.at, now)}
            </time>
            <span className={`badge kind-${e.kind}`}>{e.title}</span>
            {e.subject && <span className="mono"> {e.subject}</span>}
            {e.detail && <div className="detail-text">{e.detail}</div>}
            {e.actor && <div className="muted small-text">asked by {e.actor}</div>}
          </li>
        ))}
        {entries.length === 0 && <li className="muted">Nothing yet.</li>}
      </ol>
    </section>
  );
}

/** DrainProgress — one drain operation, re-read while it runs (its events say when it moves). */
function DrainProgress({ id }: { id: string }) {
  const { api } = useApp();
  const [op, setOp] = useState<DrainOperation | undefined>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ac = new AbortController();
    api.get<DrainOperation>(`/api/v1/drains/${id}`, ac.signal).then(setOp, () => undefined);
    return () => ac.abort();
  }, [api, id, tick]);
  useEffect(() => {
    if (!op || op.status === 'completed' || op.status === 'failed') return;
    const t = setTimeout(() => setTick((x) => x + 1), 2000);
    return () => clearTimeout(t);
  }, [op]);
  useLive(
    (t) => t.startsWith('node.drain.'),
    (e) => (e.data as { operationId?: string }).operationId === id && setTick((x) => x + 1),
  );
  if (!op) return null;
  const p = op.progress ?? {};
  const total = typeof p.podsTotal === 'number' ? p.podsTotal : undefined;
  const evicted = total !== undefined && typeof p.podsLeft === 'number' ? total - p.podsLeft : undefined;
  return (
    <div className="drain" data-testid="drain">
      <span className="mono">{op.node}</span> <span className={`badge drain-${op.status}`}>{op.status}</span>
      {total !== undefined && evicted !== undefined ? (
        <>
          <progress max={total} value={evicted} aria-label={`${evicted} of ${total} pods evicted`} /> {evicted}/{total} pods
        </>
      ) : null}
      {typeof p.pdbWaits === 'number' && p.pdbWaits > 0 ? <span className="muted small-text"> · {p.pdbWaits} waits on a PodDisruptionBudget</span> : null}
      <span className="muted small-text">
        {' '}
        by {op.actor ?? '—'}
        {op.reason ? ` · ${op.reason}` : ''}
        {op.message ? ` · ${op.message}` : ''}
      </span>
    </div>
  );
}
