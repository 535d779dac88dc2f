import { useState } from 'react';
import { useApp, useDebounced, useLive, useResource } from '../context';
import { dateTime } from '../format';

/** Approval — what the console reads of a pending approval; unknown fields are shown as they come. */
interface Approval {
  id: string;
  status?: string;
  action?: string;
  kind?: string;
  subject?: string;
  summary?: string;
  reason?: string;
  requestedBy?: string;
  actor?: string;
  createdAt?: string;
  expiresAt?: string;
}

/**
 * ApprovalsView — pending approvals with approve / reject (write scope). Shown only when this gateway answers
 * `GET /api/v1/approvals`; decisions go to `POST /api/v1/approvals/{id}/approve|reject`.
 */
export function ApprovalsView() {
  const { api, canWrite } = useApp();
  const list = useResource((signal) => api.get<{ items: Approval[] }>('/api/v1/approvals?limit=100', signal), [api]);
  const [busy, setBusy] = useState<string | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const reload = useDebounced(list.reload, 400);
  useLive((t) => t.startsWith('approval.'), reload, list.reload);
  const pending = (list.data?.items ?? []).filter((a) => !a.status || a.status === 'pending');
  const decide = async (a: Approval, verdict: 'approve' | 'reject') => {
    setBusy(a.id);
    try {
      await api.post(`/api/v1/approvals/${encodeURIComponent(a.id)}/${verdict}`, {});
      setMessage({ ok: true, text: `${verdict === 'approve' ? 'Approved' : 'Rejected'} ${a.action ?? a.kind ?? a.id}.` });
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
        <span className="muted">{list.data ? `${pending.length} pending` : 'loading…'}</span>
      </div>
      {message && <p className={`notice ${message.ok ? 'ok' : 'error'}`}>{message.text}</p>}
      {list.error && <p className="notice error">{list.error}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Subject</th>
            <th scope="col">Why</th>
            <th scope="col">Asked by</th>
            <th scope="col">Since</th>
            <th scope="col">Decide</th>
          </tr>
        </thead>
        <tbody>
          {pending.map((a) => (
            <tr key={a.id}>
              <td>{a.action ?? a.kind ?? '—'}</td>
              <td className="mono">{a.subject ?? '—'}</td>
              <td>{a.summary ?? a.reason ?? '—'}</td>
              <td>{a.requestedBy ?? a.actor ?? '—'}</td>
              <td>{dateTime(a.createdAt)}</td>
              <td>
                <button type="button" disabled={!canWrite || busy === a.id} onClick={() => void decide(a, 'approve')}>
                  Approve
                </button>{' '}
                <button type="button" className="danger" disabled={!canWrite || busy === a.id} onClick={() => void decide(a, 'reject')}>
                  Reject
                </button>
              </td>
            </tr>
          ))}
          {list.data && pending.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                Nothing waits for approval.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
