import type { ActivePause, DisruptionsResumedData, PauseRequest, PauseScope, PauseSource } from '@nodes-manager/contracts';

/** PauseWrite — a pause or a resume to record: the row and what it says. */
export type PauseWrite =
  | { action: 'pause'; reason: string; scope: PauseScope; until: Date | null; actor: string; source: PauseSource }
  | { action: 'resume'; why: DisruptionsResumedData['why']; actor: string; source: PauseSource };

/** The longest a pause may be set for ahead (docs/pause.md#the-api). */
export const PAUSE_MAX_AHEAD_MS = 30 * 24 * 3600_000;
export const PAUSE_REASON_MAX = 500;

/** PauseProblem — one field of a pause request that cannot be accepted, in words. */
export interface PauseProblem {
  field: 'reason' | 'until' | 'scope';
  message: string;
}

/** validatePauseRequest — `reason` 1–500 characters; `until` RFC 3339, after `now`, at most 30 days ahead. */
export function validatePauseRequest(req: PauseRequest, now: Date): PauseProblem[] {
  const problems: PauseProblem[] = [];
  const reason = typeof req.reason === 'string' ? req.reason.trim() : '';
  if (reason.length === 0) problems.push({ field: 'reason', message: 'is required: say why disruptive actions are paused' });
  else if (reason.length > PAUSE_REASON_MAX) problems.push({ field: 'reason', message: `must be at most ${PAUSE_REASON_MAX} characters` });
  if (req.until !== undefined) {
    const at = Date.parse(req.until);
    if (Number.isNaN(at)) problems.push({ field: 'until', message: 'must be an RFC 3339 time' });
    else if (at <= now.getTime()) problems.push({ field: 'until', message: 'must be in the future' });
    else if (at - now.getTime() > PAUSE_MAX_AHEAD_MS) problems.push({ field: 'until', message: 'must be at most 30 days ahead' });
  }
  if (req.scope !== undefined && req.scope !== 'disruptive' && req.scope !== 'all') problems.push({ field: 'scope', message: 'must be one of disruptive, all' });
  return problems;
}

const expired = (p: ActivePause, now: Date): boolean => p.until !== null && Date.parse(p.until) <= now.getTime();

/** decidePause — an operator's pause: always recorded (pausing while paused replaces the pause). */
export function decidePause(req: PauseRequest, actor: string): PauseWrite {
  return { action: 'pause', reason: req.reason.trim(), scope: req.scope ?? 'disruptive', until: req.until ? new Date(req.until) : null, actor, source: 'api' };
}

/**
 * decideResume — an operator's resume: the pause in force ends; one whose `until` passed unrecorded is recorded as
 * expired; nothing paused, nothing recorded (a retried DELETE answers the same state).
 */
export function decideResume(latest: ActivePause | null, actor: string, now: Date): PauseWrite | null {
  if (!latest) return null;
  if (expired(latest, now)) return decideExpiry(latest, now);
  return { action: 'resume', why: 'operator', actor, source: 'api' };
}

/** decideExpiry — the pause's `until` has passed: its end is recorded by the system. */
export function decideExpiry(latest: ActivePause | null, now: Date): PauseWrite | null {
  if (!latest || !expired(latest, now)) return null;
  return { action: 'resume', why: 'expired', actor: 'system:uncordon', source: 'expiry' };
}

/**
 * decideConfigured — DISRUPTION_PAUSE applied when it changed (docs/pause.md#configuration): compared with the value
 * last applied from the configuration (none: `false`), so a restart does not undo an operator's resume. `true` pauses
 * as `config:DISRUPTION_PAUSE`; `false` after `true` resumes (and is recorded even when nothing is paused, so the
 * next start knows it was applied).
 */
export function decideConfigured(lastConfigured: boolean | null, configured: boolean, reason: string): PauseWrite | null {
  if ((lastConfigured ?? false) === configured) return null;
  if (configured) return { action: 'pause', reason, scope: 'disruptive', until: null, actor: 'config:DISRUPTION_PAUSE', source: 'configuration' };
  return { action: 'resume', why: 'configuration', actor: 'config:DISRUPTION_PAUSE', source: 'configuration' };
}
