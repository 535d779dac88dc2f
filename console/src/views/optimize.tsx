import { useState } from 'react';
import { ApiError } from '../api';
import { useApp, useDebounced, useLive, useResource } from '../context';
import { dateTime, pct, PLAN_REASON_WORDS, usd, words } from '../format';
import type { Plan } from '../types';

/**
 * OptimizeView — the consolidation plan as scheduler-scoring computes it now: nodes to remove and where each pod
 * goes, what is kept and why, PodDisruptionBudget impact, hourly and monthly savings; and a dry-run trigger (write
 * scope) that records a plan without draining anything.
 */
export function OptimizeView() {
  const { api, canWrite } = useApp();
  const plan = useResource((signal) => api.get<Plan>('/api/v1/optimize/plan', signal), [api]);
  const [trigger, setTrigger] = useState<{ busy: boolean; result?: string; error?: string }>({ busy: false });
  const reload = useDebounced(plan.reload, 500);
  useLive((t) => t.startsWith('optimize.') || t === 'node.drain.completed', reload, plan.reload);

  const dryRun = async () => {
    setTrigger({ busy: true });
    try {
      const r = await api.post<{ planId?: string; plan?: Plan }>('/api/v1/optimize/trigger', { dryRun: true });
      setTrigger({ busy: false, result: `Dry run recorded (plan ${r.planId ?? '—'}): ${r.plan?.remove.length ?? 0} node${r.plan?.remove.length === 1 ? '' : 's'} would go, saving ${usd(r.plan?.hourlySavingsUsd)}/h. Nothing was drained.` });
      plan.reload();
    } catch (err) {
      setTrigger({ busy: false, error: err instanceof ApiError && err.status === 403 ? `Not allowed: ${err.message}` : (err as Error).message });
    }
  };

  const p = plan.data;
  return (
    <section className="view" aria-labelledby="optimize-title">
      <div className="view-head">
        <h1 id="optimize-title">Optimize</h1>
        {p && <span className="muted">plan of {dateTime(p.generatedAt)} · mode {p.mode} · prices from {p.priceSource}</span>}
        <button type="button" onClick={dryRun} disabled={!canWrite || trigger.busy} title={canWrite ? 'Plan now without draining anything' : 'needs the nodes:write scope'}>
          {trigger.busy ? 'Running…' : 'Dry run now'}
        </button>
        {!canWrite && <span className="muted small-text">read-only token: the dry run needs the write scope</span>}
      </div>
      {trigger.result && (
        <p className="notice ok" role="status">
          {trigger.result}
        </p>
      )}
      {trigger.error && (
        <p className="notice error" role="alert">
          {trigger.error}
        </p>
      )}
      {plan.error && <p className="notice error">{plan.error}</p>}
      {!p && !plan.error && <p className="muted">loading…</p>}
      {p && (
        <>
          <div className="cards" data-testid="savings">
            <div className="card">
              <div className="card-label">Nodes to remove</div>
              <div className="card-value">{p.remove.length}</div>
            </div>
            <div className="card">
              <div className="card-label">Saves per hour</div>
              <div className="card-value" data-testid="hourly-savings">
                {usd(p.hourlySavingsUsd)}
              </div>
            </div>
            <div className="card">
              <div className="card-label">Saves per month</div>
              <div className="card-value" data-testid="monthly-savings">
                {usd(p.monthlySavingsUsd, 0)}
              </div>
            </div>
            <div className="card">
              <div className="card-label">Under-use threshold</div>
              <div className="card-value">{pct(p.threshold)}</div>
            </div>
          </div>
          <h2>Nodes to remove, and where their pods go</h2>
          {p.remove.length === 0 ? (
            <p className="muted">Nothing to consolidate: every node is used above the threshold, or its pods fit nowhere else.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">Why</th>
                  <th scope="col" className="num">
                    Used
                  </th>
                  <th scope="col" className="num">
                    Saves/h
                  </th>
                  <th scope="col">Pods → new node</th>
                </tr>
              </thead>
              <tbody>
                {p.remove.map((r) => (
                  <tr key={r.node}>
                    <td className="mono">
                      <a href={`#/fleet/${encodeURIComponent(r.node)}`}>{r.node}</a>
                    </td>
                    <td>{words(PLAN_REASON_WORDS, r.reason)}</td>
                    <td className="num">{pct(r.utilization)}</td>
                    <td className="num">{r.priceKnown ? usd(r.savingsUsdPerHour, 4) : 'price unknown'}</td>
                    <td>
                      <ul className="plain small-text mono">
                        {r.pods.map((x) => (
                          <li key={x.pod}>
                            {x.pod} → {x.to}
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="two">
            <div>
              <h2>Kept, and why</h2>
              {p.blocked.length === 0 ? (
                <p className="muted">none</p>
              ) : (
                <ul className="plain">
                  {p.blocked.map((b) => (
                    <li key={b.node}>
                      <span className="mono">{b.node}</span> — {words(PLAN_REASON_WORDS, b.reason)}
                      {b.detail && <div className="muted small-text">{b.detail}</div>}
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <div>
              <h2>PodDisruptionBudget impact</h2>
              {p.pdbImpact.length === 0 ? (
                <p className="muted">no budget touched</p>
              ) : (
                <table className="small">
                  <thead>
                    <tr>
                      <th scope="col">PDB</th>
                      <th scope="col" className="num">
                        Disruptions used / allowed
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {p.pdbImpact.map((x) => (
                      <tr key={x.pdb} className={x.disruptionsUsed >= x.disruptionsAllowed && x.disruptionsUsed > 0 ? 'at-limit' : ''}>
                        <td className="mono">{x.pdb}</td>
                        <td className="num">
                          {x.disruptionsUsed} / {x.disruptionsAllowed}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
