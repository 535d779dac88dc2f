import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useApp, useDebounced, useLive, useNow } from '../context';
import { ago, clock, cores, dateTime, gib, pct, reasonWords } from '../format';
import { ApiError } from '../api';
import type { Cordon, Node, NodeDetail, ScalingEvent } from '../types';

const STATES = ['Ready', 'Cordoned', 'Draining', 'NotReady'] as const;
const ROW_PX = 34;
/** Live updates re-read at most this many changed nodes one by one; beyond that the whole list is re-read. */
const MAX_SINGLE_REFRESH = 40;

interface Filters {
  text: string;
  zone: string;
  state: string;
  capacityType: string;
  instanceType: string;
  nodePool: string;
}
const NO_FILTERS: Filters = { text: '', zone: '', state: '', capacityType: '', instanceType: '', nodePool: '' };

const usage = (n: Node) => (n.allocatable && n.requested && n.allocatable.cpuMilli > 0 ? n.requested.cpuMilli / n.allocatable.cpuMilli : undefined);
const memUsage = (n: Node) => (n.allocatable && n.requested && n.allocatable.memoryBytes > 0 ? n.requested.memoryBytes / n.allocatable.memoryBytes : undefined);

/**
 * FleetView — every node by zone × state, filterable, in a virtualised table (only the visible rows are in the
 * DOM, so 5,000 nodes scroll like 50); the list arrives in pages of 500 and paints after the first.
 */
export function FleetView({ selected }: { selected?: string }) {
  const { api, navigate } = useApp();
  const nodes = useRef(new Map<string, Node>());
  const [version, setVersion] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | undefined>();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const dirty = useRef(new Set<string>());
  /** When each node was last read from the API (ISO), and the nodes whose latest re-read failed (kept, shown stale). */
  const seenAt = useRef(new Map<string, string>());
  const stale = useRef(new Set<string>());
  const seen = (names: Iterable<string>) => {
    const at = new Date().toISOString();
    for (const name of names) {
      seenAt.current.set(name, at);
      stale.current.delete(name);
    }
  };
  const firstPaint = useRef(false);
  const filterBox = useRef<HTMLInputElement>(null);

  const loadAll = useRef(async () => {
    setLoading(true);
    setError(undefined);
    const fresh = new Map<string, Node>();
    try {
      await api.pages<Node>('/api/v1/nodes', (items, done) => {
        for (const n of items) fresh.set(n.name, n);
        seen(items.map((n) => n.name));
        // Show what has arrived: the first page paints at once, the others fill in.
        nodes.current = new Map([...nodes.current, ...fresh]);
        if (done) nodes.current = fresh;
        setVersion((v) => v + 1);
      });
    } catch (err) {
      // The nodes this read did not reach stay as last seen, marked stale; none is dropped for a failed read.
      for (const name of nodes.current.keys()) if (!fresh.has(name)) stale.current.add(name);
      setError(`Could not refresh the fleet (${(err as Error).message}); nodes not re-read are shown as last seen.`);
      setVersion((v) => v + 1);
    } finally {
      setLoading(false);
    }
  }).current;

  useEffect(() => {
    void loadAll();
  }, [loadAll]);

  useEffect(() => {
    if (!firstPaint.current && nodes.current.size > 0) {
      firstPaint.current = true;
      requestAnimationFrame(() => performance.mark('fleet-first-rows'));
    }
    if (!loading && nodes.current.size > 0) performance.mark('fleet-all-rows');
  }, [version, loading]);

  const refreshDirty = useDebounced(async () => {
    const names = [...dirty.current];
    dirty.current.clear();
    if (names.length > MAX_SINGLE_REFRESH) return void loadAll();
    await Promise.all(
      names.map(async (name) => {
        try {
          const n = await api.get<NodeDetail>(`/api/v1/nodes/${encodeURIComponent(name)}`);
          const { pods: _pods, drain: _drain, ...node } = n;
          seen([name]);
          if (node.state === 'Deleted') nodes.current.delete(name);
          else nodes.current.set(name, node);
        } catch (err) {
          // Gone (404): removed. Any other failure says nothing about the node: keep it as last seen, marked stale.
          if (err instanceof ApiError && err.status === 404) nodes.current.delete(name);
          else if (nodes.current.has(name)) stale.current.add(name);
        }
      }),
    );
    nodes.current = new Map(nodes.current);
    setVersion((v) => v + 1);
  }, 700);

  useLive(
    (t) => t === 'node.added' || t === 'node.changed' || t === 'node.removed' || t === 'node.uncordoned' || t.startsWith('node.drain.'),
    (e) => {
      const name = (e.data as { name?: string; node?: string }).name ?? (e.data as { node?: string }).node ?? e.subject;
      if (!name) return;
      if (e.type === 'node.removed') {
        nodes.current.delete(name);
        nodes.current = new Map(nodes.current);
        setVersion((v) => v + 1);
        return;
      }
      dirty.current.add(name);
      refreshDirty();
    },
    () => void loadAll(),
  );

  const all = useMemo(() => [...nodes.current.values()].sort((a, b) => a.name.localeCompare(b.name)), [version]);
  const options = useMemo(() => {
    const o = { zone: new Set<string>(), instanceType: new Set<string>(), nodePool: new Set<string>(), capacityType: new Set<string>() };
    for (const n of all) {
      if (n.zone) o.zone.add(n.zone);
      if (n.instanceType) o.instanceType.add(n.instanceType);
      if (n.nodePool) o.nodePool.add(n.nodePool);
      if (n.capacityType) o.capacityType.add(n.capacityType);
    }
    return { zone: [...o.zone].sort(), instanceType: [...o.instanceType].sort(), nodePool: [...o.nodePool].sort(), capacityType: [...o.capacityType].sort() };
  }, [all]);
  const shown = useMemo(() => {
    const text = filters.text.trim().toLowerCase();
    return all.filter(
      (n) =>
        (!text || n.name.toLowerCase().includes(text) || (n.instanceType ?? '').includes(text)) &&
        (!filters.zone || n.zone === filters.zone) &&
        (!filters.state || n.state === filters.state) &&
        (!filters.capacityType || n.capacityType === filters.capacityType) &&
        (!filters.instanceType || n.instanceType === filters.instanceType) &&
        (!filters.nodePool || n.nodePool === filters.nodePool),
    );
  }, [all, filters]);
  const matrix = useMemo(() => {
    const m = new Map<string, Record<string, number>>();
    for (const n of all) {
      const z = n.zone ?? '(no zone)';
      const row = m.get(z) ?? { Ready: 0, Cordoned: 0, Draining: 0, NotReady: 0, spot: 0, 'on-demand': 0 };
      row[n.state] = (row[n.state] ?? 0) + 1;
      if (n.capacityType) row[n.capacityType] = (row[n.capacityType] ?? 0) + 1;
      m.set(z, row);
    }
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [all]);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key === '/' && !['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)) {
        e.preventDefault();
        filterBox.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const set = (k: keyof Filters) => (v: string) => setFilters((f) => ({ ...f, [k]: v }));
  const open = (name: string) => navigate(`#/fleet/${encodeURIComponent(name)}`);

  return (
    <section className={`view fleet ${selected ? 'with-detail' : ''}`} aria-labelledby="fleet-title">
      <div className="fleet-main">
        <div className="view-head">
          <h1 id="fleet-title">Fleet</h1>
          <span className="muted" data-testid="fleet-count">
            {loading ? `loading… ${all.length} nodes so far` : `${all.length} nodes`}
            {shown.length !== all.length ? ` · ${shown.length} shown` : ''}
          </span>
        </div>
        {error && <p className="notice error">{error}</p>}
        <table className="matrix" aria-label="Nodes by zone and state">
          <thead>
            <tr>
              <th scope="col">Zone</th>
              {STATES.map((s) => (
                <th scope="col" key={s}>
                  {s}
                </th>
              ))}
              <th scope="col">Spot</th>
              <th scope="col">On-demand</th>
            </tr>
          </thead>
          <tbody>
            {matrix.map(([zone, row]) => (
              <tr key={zone}>
                <th scope="row">{zone}</th>
                {STATES.map((s) => (
                  <td key={s} className={`state-${s}`}>
                    {row[s] ? (
                      <button type="button" className="cell" onClick={() => setFilters({ ...NO_FILTERS, zone, state: s })} aria-label={`${row[s]} ${s} nodes in ${zone}: show them`}>
                        {row[s]}
                      </button>
                    ) : (
                      <span className="zero">0</span>
                    )}
                  </td>
                ))}
                <td>{row['spot'] ?? 0}</td>
                <td>{row['on-demand'] ?? 0}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="filters" role="search">
          <input ref={filterBox} type="search" placeholder="Filter by name or type  ( / )" aria-label="Filter nodes by name" value={filters.text} onChange={(e) => set('text')(e.target.value)} />
          <Select label="Zone" value={filters.zone} options={options.zone} onChange={set('zone')} />
          <Select label="State" value={filters.state} options={[...STATES]} onChange={set('state')} />
          <Select label="Capacity" value={filters.capacityType} options={options.capacityType} onChange={set('capacityType')} />
          <Select label="Instance type" value={filters.instanceType} options={options.instanceType} onChange={set('instanceType')} />
          <Select label="NodePool" value={filters.nodePool} options={options.nodePool} onChange={set('nodePool')} />
          {filters !== NO_FILTERS && (
            <button type="button" className="link" onClick={() => setFilters(NO_FILTERS)}>
              Clear filters
            </button>
          )}
        </div>
        {stale.current.size > 0 && (
          <p className="notice warn" data-testid="fleet-stale-notice">
            {stale.current.size === 1 ? '1 node' : `${stale.current.size} nodes`} could not be refreshed: shown as last seen, marked stale.
          </p>
        )}
        <NodeTable nodes={shown} selected={selected} onOpen={open} stale={stale.current} seenAt={seenAt.current} />
      </div>
      {selected && <NodeDetailPanel name={selected} onClose={() => navigate('#/fleet')} />}
    </section>
  );
}

function Select({ label, value, options, onChange }: { label: string; value: string; options: string[]; onChange: (v: string) => void }) {
  return (
    <label className="select">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">all</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

function NodeTable({
  nodes,
  selected,
  onOpen,
  stale,
  seenAt,
}: {
  nodes: Node[];
  selected: string | undefined;
  onOpen: (name: string) => void;
  stale: ReadonlySet<string>;
  seenAt: ReadonlyMap<string, string>;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: nodes.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 12 });
  const onKey = (e: KeyboardEvent<HTMLDivElement>, i: number) => {
    const move = (to: number) => {
      e.preventDefault();
      const j = Math.max(0, Math.min(nodes.length - 1, to));
      v.scrollToIndex(j);
      requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>(`[data-index="${j}"]`)?.focus());
    };
    if (e.key === 'Enter' || e.key === ' ') (e.preventDefault(), onOpen(nodes[i]!.name));
    else if (e.key === 'ArrowDown') move(i + 1);
    else if (e.key === 'ArrowUp') move(i - 1);
    else if (e.key === 'PageDown') move(i + 15);
    else if (e.key === 'PageUp') move(i - 15);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(nodes.length - 1);
  };
  return (
    <div className="vtable" role="table" aria-label="Nodes" aria-rowcount={nodes.length + 1}>
      <div className="vrow vhead" role="row">
        {['Node', 'State', 'Zone', 'Instance type', 'Capacity', 'NodePool', 'Pods', 'CPU req.', 'Mem req.'].map((h) => (
          <span role="columnheader" key={h}>
            {h}
          </span>
        ))}
      </div>
      <div className="vbody" ref={scroller} data-testid="fleet-scroller">
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((item) => {
            const n = nodes[item.index]!;
            return (
              <div
                key={n.name}
                role="row"
                tabIndex={0}
                data-index={item.index}
                data-testid="fleet-row"
                data-node={n.name}
                data-stale={stale.has(n.name) || undefined}
                aria-rowindex={item.index + 2}
                aria-selected={n.name === selected}
                className={`vrow ${n.name === selected ? 'selected' : ''} ${stale.has(n.name) ? 'stale' : ''}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_PX, transform: `translateY(${item.start}px)` }}
                onClick={() => onOpen(n.name)}
                onKeyDown={(e) => onKey(e, item.index)}
              >
                <span role="cell" className="mono">
                  {n.name}
                  {stale.has(n.name) && <StaleMark at={seenAt.get(n.name)} />}
                </span>
                <span role="cell">
                  <span className={`badge state-${n.state}`}>{n.state}</span>
                </span>
                <span role="cell">{n.zone ?? '—'}</span>
                <span role="cell">{n.instanceType ?? '—'}</span>
                <span role="cell">{n.capacityType ?? '—'}</span>
                <span role="cell">{n.nodePool ?? '—'}</span>
                <span role="cell" className="num">
                  {n.podCount}
                </span>
                <span role="cell" className="num">
                  {pct(usage(n))}
                </span>
                <span role="cell" className="num">
                  {pct(memUsage(n))}
                </span>
              </div>
            );
          })}
        </div>
        {nodes.length === 0 && <p className="muted pad">No node matches.</p>}
      </div>
    </div>
  );
}

/** StaleMark — a node whose latest re-read failed: what is shown is as of `at`, in the viewer's time zone. */
function StaleMark({ at }: { at: string | undefined }) {
  return (
    <span className="badge stale" data-testid="stale" title={at ? `Could not be refreshed; last seen ${dateTime(at)}` : 'Could not be refreshed'}>
      stale{at ? ' · last seen ' : ''}
      {at && <time dateTime={at}>{clock(at)}</time>}
    </span>
  );
}

function NodeDetailPanel({ name, onClose }: { name: string; onClose: () => void }) {
  const { api } = useApp();
  const now = useNow(5000);
  const [node, setNode] = useState<NodeDetail | undefined>();
  const [cordon, setCordon] = useState<Cordon | undefined>();
  const [history, setHistory] = useState<ScalingEvent[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [tick, setTick] = useState(0);
  const close = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const ac = new AbortController();
    setError(undefined);
    void (async () => {
      try {
        const [n, h] = await Promise.all([
          api.get<NodeDetail>(`/api/v1/nodes/${encodeURIComponent(name)}`, ac.signal),
          api.get<{ items: ScalingEvent[] }>(`/api/v1/events?node=${encodeURIComponent(name)}&limit=50`, ac.signal),
        ]);
        setNode(n);
        setHistory(h.items);
        if (n.unschedulable) {
          let found: Cordon | undefined;
          await api.pages<Cordon>('/api/v1/cordons', (items) => (found ??= items.find((c) => c.node === name)), { signal: ac.signal });
          setCordon(found);
        } else setCordon(undefined);
      } catch (err) {
        if (!ac.signal.aborted) setError((err as Error).message);
      }
    })();
    return () => ac.abort();
  }, [api, name, tick]);
  useEffect(() => close.current?.focus(), [name]);
  useLive(
    (t) => t.startsWith('node.'),
    (e) => {
      const subject = (e.data as { name?: string; node?: string }).name ?? (e.data as { node?: string }).node ?? e.subject;
      if (subject === name) setTick((x) => x + 1);
    },
  );

  return (
    <aside className="detail" aria-label={`Node ${name}`} onKeyDown={(e) => e.key === 'Escape' && onClose()} data-testid="node-detail">
      <div className="detail-head">
        <h2 className="mono">{name}</h2>
        <button type="button" ref={close} onClick={onClose} aria-label="Close node detail (Escape)">
          ✕
        </button>
      </div>
      {error && <p className="notice error">{error}</p>}
      {!node && !error && <p className="muted">loading…</p>}
      {node && (
        <>
          <dl className="facts">
            <dt>State</dt>
            <dd>
              <span className={`badge state-${node.state}`}>{node.state}</span>
            </dd>
            <dt>Type</dt>
            <dd>
              {node.instanceType ?? '—'} · {node.capacityType ?? '—'} · {node.zone ?? '—'}
            </dd>
            <dt>NodePool</dt>
            <dd>{node.nodePool ?? '—'}</dd>
            <dt>CPU</dt>
            <dd>
              {cores(node.requested?.cpuMilli)} of {cores(node.allocatable?.cpuMilli)} cores requested ({pct(usage(node))})
            </dd>
            <dt>Memory</dt>
            <dd>
              {gib(node.requested?.memoryBytes)} of {gib(node.allocatable?.memoryBytes)} ({pct(memUsage(node))})
            </dd>
            <dt>Created</dt>
            <dd>{dateTime(node.createdAt)}</dd>
          </dl>
          <h3>Taints</h3>
          {node.taints.length === 0 ? (
            <p className="muted">none</p>
          ) : (
            <ul className="plain mono">
              {node.taints.map((t) => (
                <li key={`${t.key}:${t.effect}`}>
                  {t.key}
                  {t.value ? `=${t.value}` : ''}:{t.effect}
                </li>
              ))}
            </ul>
          )}
          {node.unschedulable && (
            <>
              <h3>Cordon</h3>
              {cordon ? (
                <div className="evidence">
                  <p>
                    <span className={`badge verdict-${cordon.decision}`}>{cordon.decision}</span> {reasonWords(cordon.reason, cordon.description)}
                  </p>
                  <p className="muted">
                    Cordoned by {cordon.evidence.cordonManager ?? 'unknown'} {ago(cordon.evidence.cordonedSince, now)}; Ready since {dateTime(cordon.evidence.readySince)}
                  </p>
                </div>
              ) : (
                <p className="muted">no verdict yet</p>
              )}
            </>
          )}
          {node.drain && (
            <>
              <h3>Drain</h3>
              <p>
                {node.drain.status} {node.drain.reason ? `(${node.drain.reason})` : ''} by {node.drain.actor ?? '—'}, started {dateTime(node.drain.startedAt)}
              </p>
            </>
          )}
          {node.pressure && (
            <>
              <h3>Pressure (PSI)</h3>
              {node.pressure.status === 'ok' ? (
                <p>
                  memory full {node.pressure.memory?.full.avg10 ?? '—'}% (10 s) / {node.pressure.memory?.full.avg60 ?? '—'}% (60 s) · cpu some {node.pressure.cpu?.some.avg10 ?? '—'}% · io some {node.pressure.io?.some.avg10 ?? '—'}%
                  <span className="muted"> — {node.pressure.mode}, sampled {ago(node.pressure.sampledAt, now)}</span>
                </p>
              ) : (
                <p className="muted">{node.pressure.status === 'unknown' ? 'the kubelet reports no PSI' : 'the kubelet did not answer'} ({node.pressure.mode})</p>
              )}
              {node.pressure.lastRelief && (
                <p className="muted">
                  last relief: {node.pressure.lastRelief.outcome} {node.pressure.lastRelief.pod} {ago(node.pressure.lastRelief.at, now)}
                </p>
              )}
            </>
          )}
          {node.fencing && (
            <>
              <h3>Fencing</h3>
              {node.fencing.verdict && (
                <p>
                  <span className={`badge verdict-${node.fencing.verdict.decision}`}>{node.fencing.verdict.decision}</span> {node.fencing.verdict.message}
                </p>
              )}
              {node.fencing.operation && (
                <p>
                  {node.fencing.operation.action} {node.fencing.operation.instanceId}: {node.fencing.operation.status}
                  {node.fencing.operation.reason ? ` (${node.fencing.operation.reason})` : ''}, started {dateTime(node.fencing.operation.startedAt)}
                </p>
              )}
            </>
          )}
          <h3>Pods ({node.pods.length})</h3>
          <table className="small">
            <thead>
              <tr>
                <th>Pod</th>
                <th>Class</th>
                <th className="num">CPU</th>
                <th className="num">Memory</th>
              </tr>
            </thead>
            <tbody>
              {node.pods.map((p) => (
                <tr key={p.uid}>
                  <td className="mono">
                    {p.namespace}/{p.name}
                  </td>
                  <td>{p.daemonset ? 'daemonset' : (p.workloadClass ?? '—')}</td>
                  <td className="num">{cores(p.requests?.cpuMilli)}</td>
                  <td className="num">{gib(p.requests?.memoryBytes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>History</h3>
          {history.length === 0 ? (
            <p className="muted">no action recorded on this node</p>
          ) : (
            <ul className="timeline">
              {history.map((h) => (
                <li key={h.id}>
                  <time dateTime={h.createdAt}>{dateTime(h.createdAt)}</time> {h.action} — {reasonWords(h.reason)} <span className="muted">by {h.actor}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </aside>
  );
}
