import { useEffect, useMemo, useRef, useState } from 'react';
import { useApp, useDebounced, useLive } from '../context';
import { ApiError } from '../api';
import type { Node, NodeDetail } from '../types';
import { NodeDetailPanel } from './node-detail';
import { NodeTable } from './node-table';

const STATES = ['Ready', 'Cordoned', 'Draining', 'NotReady'] as const;
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
