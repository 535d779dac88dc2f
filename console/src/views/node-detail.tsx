import { useEffect, useRef, useState } from 'react';
import { useApp, useLive, useNow } from '../context';
import { ago, cores, dateTime, gib, pct, reasonWords } from '../format';
import type { Cordon, NodeDetail, ScalingEvent } from '../types';
import { memUsage, usage } from './node-table';

/** NodeDetailPanel — one node's facts, taints, cordon verdict, drain, pressure, fencing, pods and history, kept live. */
export function NodeDetailPanel({ name, onClose }: { name: string; onClose: () => void }) {
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
