import { useEffect, useState } from 'react';
import { useApp, useLive, useNow, useResource } from '../context';
import { dateTime, duration } from '../format';

interface ActivePause {
  reason: string;
  scope: 'disruptive' | 'all';
  pausedBy: string;
  pausedAt: string;
  until: string | null;
  source: 'api' | 'configuration' | 'expiry';
}
interface PauseView {
  paused: boolean;
  pause: ActivePause | null;
}

/** whoPaused — who, in words: an operator's name, or the configuration. */
const whoPaused = (p: ActivePause): string => (p.source === 'configuration' ? 'the configuration (DISRUPTION_PAUSE)' : p.pausedBy);

/**
 * PauseBanner — across every view while disruptive actions are paused fleet-wide (docs/pause.md): who paused, why,
 * since when and until when in the viewer's time zone, what it holds; a Resume button for the write scope. Read at
 * start and again on `disruptions.paused` / `disruptions.resumed` (and when a pause's `until` passes).
 */
export function PauseBanner() {
  const { api, canWrite } = useApp();
  const now = useNow(15_000);
  const { data, reload } = useResource((signal) => api.get<PauseView>('/api/v1/pause', signal));
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useLive((t) => t === 'disruptions.paused' || t === 'disruptions.resumed', reload, reload);
  const pause = data?.pause ?? null;
  const ended = pause?.until ? Date.parse(pause.until) <= now : false;
  useEffect(() => {
    if (ended) reload();
  }, [ended, reload]);
  if (!pause || ended) return null;
  const resume = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      await api.request('/api/v1/pause', { method: 'DELETE' });
      reload();
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const until = pause.until ? `until ${dateTime(pause.until)} (${duration(Date.parse(pause.until) - now)} from now)` : 'until someone resumes';
  return (
    <div className="pause-banner" role="alert" data-testid="pause-banner">
      <div>
        <strong>Disruptive actions are paused</strong> — by {whoPaused(pause)} since {dateTime(pause.pausedAt)}, {until}: “{pause.reason}”.
        <span className="hint">
          {' '}
          No drain, fence, pressure relief, consolidation or optimizer drain starts{pause.scope === 'all' ? ', nor any auto-uncordon' : '; auto-uncordon goes on'}. Running drains wait at a safe point.
        </span>
        {problem && <span className="error"> Could not resume: {problem}</span>}
      </div>
      {canWrite && (
        <button type="button" onClick={() => void resume()} disabled={busy}>
          {busy ? 'Resuming…' : 'Resume'}
        </button>
      )}
    </div>
  );
}
