import { useState } from 'react';
import { FILTER_REASON_WORDS, type PlacementEntry } from '../../../libs/contracts/src/placement';
import { useApp, useDebounced, useResource } from '../context';

/** The page size of the Workloads view: one page of the API's, a filter narrows it. */
const LIMIT = 200;

const FIT_WORDS: Record<PlacementEntry['fit'], string> = {
  scored: 'fits',
  node_refuses: 'its node now refuses it',
  node_unknown: 'its node is unknown',
};

/** fitDetail — the fit's specifics in words: the score, which filters the node now fails and how, or why unknown. */
export function fitDetail(p: PlacementEntry): string {
  if (p.fit === 'scored') return `score ${Math.round(p.score)} of 100`;
  if (p.fit === 'node_unknown') return 'the node is deleted, or not yet seen';
  return p.refusedBy.map((r) => `${FILTER_REASON_WORDS[r.reason] ?? r.reason}: ${r.detail}`).join('; ');
}

/**
 * WorkloadsView — every running workload pod on its node: its class, and how well the node fits it now (the score of
 * 0–100 and its rationale), or why the node now refuses it (a taint it does not tolerate, not enough room…) or that
 * the node is not known. Filters by namespace and node; a page at a time.
 */
export function WorkloadsView() {
  const { api } = useApp();
  const [namespace, setNamespace] = useState('');
  const [node, setNode] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const [query, setQuery] = useState({ namespace: '', node: '' });
  const apply = useDebounced(() => {
    setCursors([]);
    setQuery({ namespace: namespace.trim(), node: node.trim() });
  }, 400);
  const cursor = cursors[cursors.length - 1];
  const params = new URLSearchParams({ limit: String(LIMIT) });
  if (query.namespace) params.set('namespace', query.namespace);
  if (query.node) params.set('node', query.node);
  if (cursor) params.set('cursor', cursor);
  const page = useResource((signal) => api.get<{ items: PlacementEntry[]; nextCursor?: string; priceSource?: string }>(`/api/v1/workloads/placement?${params}`, signal), [api, params.toString()]);
  const items = page.data?.items ?? [];
  const refused = items.filter((p) => p.fit !== 'scored').length;

  return (
    <section className="view" aria-labelledby="workloads-title">
      <div className="view-head">
        <h1 id="workloads-title">Workloads</h1>
        <span className="muted">{page.data ? `${items.length} pods on this page · ${refused} not fitting their node` : 'loading…'}</span>
        <label className="select">
          <span>Namespace</span>
          <input
            value={namespace}
            onChange={(e) => {
              setNamespace(e.target.value);
              apply();
            }}
          />
        </label>
        <label className="select">
          <span>Node</span>
          <input
            value={node}
            onChange={(e) => {
              setNode(e.target.value);
              apply();
            }}
          />
        </label>
        <button type="button" onClick={page.reload}>
          Refresh
        </button>
      </div>
      {page.error && <p className="notice error">{page.error}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Pod</th>
            <th scope="col">Workload</th>
            <th scope="col">Class</th>
            <th scope="col">Node</th>
            <th scope="col">Fit</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {items.map((p) => (
            <tr key={p.pod} data-testid="workload-row" data-pod={p.pod} data-fit={p.fit}>
              <td className="mono">{p.pod}</td>
              <td>{p.workload ?? '—'}</td>
              <td>{p.workloadClass.replace(/_/g, ' ')}</td>
              <td className="mono">
                <a href={`#/fleet/${encodeURIComponent(p.node)}`}>{p.node}</a>
              </td>
              <td data-testid="fit">
                <span className={`badge fit-${p.fit}`}>{FIT_WORDS[p.fit]}</span>
                <div className="small-text">{fitDetail(p)}</div>
              </td>
              <td className="small-text">{p.rationale}</td>
            </tr>
          ))}
          {page.data && items.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                No running workload pod{query.namespace || query.node ? ' matches' : ''}.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div className="pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous
        </button>
        <button type="button" disabled={!page.data?.nextCursor} onClick={() => page.data?.nextCursor && setCursors((c) => [...c, page.data!.nextCursor!])}>
          Next
        </button>
      </div>
    </section>
  );
}
