import { useState } from 'react';
import { useApp, useDebounced, useLive, useResource } from '../context';
import { dateTime } from '../format';

/** Approval — what the console reads of an approval (libs/contracts ApprovalView); unknown fields are ignored. */
interface Approval {
  id: string;
  kind: string;
  status: string;
  subject: string;
  reason: string;
  nodes?: { node: string; instanceId?: string }[];
  requestedBy: string;
  requestedAt: string;
  expiresAt: string;
  decidedBy?: string | null;
  results?: { node: string; outcome: string; reason: string }[];
}

const KIND_LABEL: Record<string, string> = { optimize: 'Optimizer drains', consolidate: 'Consolidation', fence: 'Fence', steer: 'NodePool steering', drain: 'Manual drain' };

/**
 * ApprovalsView — the latest approvals of disruptive actions, pending ones first, with approve / reject on pending
 * ones for a token with the write scope (a read-only token sees no buttons). Shown only when this gateway answers
 * `GET /api/v1/approvals`; decisions go to `POST /api/v1/approvals/{id}/approve|reject`, and the list follows the
 * `approval.*` events.
 */
export function ApprovalsView() {
  const { api, canWrite } = useApp();
  const list = useResource((signal) => api.get<{ items: Approval[] }>('/api/v1/approvals?limit=100', signal), [api]);
  const [busy, setBusy] = useState<string | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const reload = useDebounced(list.reload, 400);
  useLive((t) => t.startsWith('approval.'), reload, list.reload);
  const items = [...(list.data?.items ?? [])].sort((a, b) => Number(b.status === 'pending') - Number(a.status === 'pending'));
  const pending = items.filter((a) => a.status === 'pending').length;
  const decide = async (a: Approval, verdict: 'approve' | 'reject') => {
    setBusy(a.id);
    try {
      await api.post(`/api/v1/approvals/${encodeURIComponent(a.id)}/${verdict}`, {});
      setMessage({ ok: true, text: `${verdict === 'approve' ? 'Approved' : 'Rejected'}: ${KIND_LABEL[a.kind] ?? a.kind} of ${a.subject}.` });
      list.reload();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section className="view" aria-labelledby="approvals-title">
      <div className="view-head">
        <h1 id="approvals-title">Approvals</h1>
        <span className="muted" data-testid="approvals-pending">
          {list.data ? `${pending} pending` : 'loading…'}
        </span>
        {!canWrite && <span className="muted">read-only: deciding needs the write scope</span>}
      </div>
      {message && (
        <p role="status" className={`notice ${message.ok ? 'ok' : 'error'}`}>
          {message.text}
        </p>
      )}
      {list.error && <p className="notice error">{list.error}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Subject</th>
            <th scope="col">Why</th>
            <th scope="col">Asked by</th>
            <th scope="col">Asked</th>
            <th scope="col">Status</th>
            <th scope="col">Decide</th>
          </tr>
        </thead>
        <tbody>
          {items.map((a) => (
            <tr key={a.id} data-testid="approval-row" data-id={a.id} data-status={a.status}>
              <td>{KIND_LABEL[a.kind] ?? a.kind}</td>
              <td className="mono">{a.subject}</td>
              <td>{a.reason}</td>
              <td>{a.requestedBy}</td>
              <td>{dateTime(a.requestedAt)}</td>
              <td data-testid="approval-status">
                {a.status}
                {a.decidedBy && a.status !== 'pending' ? <span className="muted"> by {a.decidedBy}</span> : null}
                {a.status === 'pending' ? <span className="muted"> until {dateTime(a.expiresAt)}</span> : null}
              </td>
              <td>
                {a.status === 'pending' && canWrite ? (
                  <>
                    <button type="button" disabled={busy === a.id} onClick={() => void decide(a, 'approve')}>
                      Approve
                    </button>{' '}
                    <button type="button" className="danger" disabled={busy === a.id} onClick={() => void decide(a, 'reject')}>
                      Reject
                    </button>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
          {list.data && items.length === 0 && (
            <tr>
              <td colSpan={7} className="muted">
                No approvals yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
