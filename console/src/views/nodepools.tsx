import { useApp, useDebounced, useLive, useResource } from '../context';
import { dateTime } from '../format';
import type { NodePool } from '../types';

/** NodePoolsView — Karpenter's NodePools (shown only when Karpenter is installed): limits, use, disruption budgets. */
export function NodePoolsView() {
  const { api } = useApp();
  const pools = useResource((signal) => api.get<{ items: NodePool[]; karpenterInstalled: boolean }>('/api/v1/nodepools', signal), [api]);
  const reload = useDebounced(pools.reload, 500);
  useLive((t) => t.startsWith('nodepool.'), reload, pools.reload);
  return (
    <section className="view" aria-labelledby="pools-title">
      <div className="view-head">
        <h1 id="pools-title">NodePools</h1>
        <span className="muted">{pools.data ? `${pools.data.items.length} NodePools` : 'loading…'}</span>
      </div>
      {pools.error && <p className="notice error">{pools.error}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">NodePool</th>
            <th scope="col">Ready</th>
            <th scope="col" className="num">
              Weight
            </th>
            <th scope="col">Nodes / CPU / memory in use</th>
            <th scope="col">Limits</th>
            <th scope="col">Consolidation</th>
            <th scope="col">Disruption budgets</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {(pools.data?.items ?? []).map((p) => (
            <tr key={p.name}>
              <td className="mono">{p.name}</td>
              <td>{p.ready === false ? 'no' : 'yes'}</td>
              <td className="num">{p.weight ?? '—'}</td>
              <td>
                {p.resources?.['nodes'] ?? '0'} nodes · {p.resources?.['cpu'] ?? '0'} CPU · {p.resources?.['memory'] ?? '0'}
              </td>
              <td>{p.limits ? Object.entries(p.limits).map(([k, v]) => `${k} ${v}`).join(' · ') : 'none'}</td>
              <td>
                {p.disruption?.consolidationPolicy ?? '—'}
                {p.disruption?.consolidateAfter ? ` after ${p.disruption.consolidateAfter}` : ''}
              </td>
              <td>{(p.disruption?.budgets ?? []).map((b) => `${b.nodes}${b.schedule ? ` (${b.schedule} for ${b.duration})` : ''}`).join(', ') || '—'}</td>
              <td>{dateTime(p.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
