import type { ActivePause, DisruptiveAction } from '@nodes-manager/contracts';

/**
 * The fleet-wide pause, decided purely (docs/pause.md): what a service knows of the pause (its last reading of the
 * owner's answer, or that it could not get one), and whether one disruptive action may start now.
 */

/** PauseReading — the last answer of the pause's owner, or why there is none. */
export type PauseReading =
  | { readonly known: true; readonly pause: ActivePause | null; readonly readAt: Date }
  | { readonly known: false; readonly detail: string; readonly since: Date };

/** PauseCheck — may the action start now; if not, why (`paused`, or `pause_unknown`: the owner could not be asked). */
export type PauseCheck =
  | { readonly go: true }
  | { readonly go: false; readonly reason: 'paused'; readonly detail: string; readonly pause: ActivePause }
  | { readonly go: false; readonly reason: 'pause_unknown'; readonly detail: string };

/** pauseInForce — the pause, unless its `until` has passed at `now` (it ends by itself: nobody waits for the owner's write). */
export function pauseInForce(pause: ActivePause | null, now: Date): ActivePause | null {
  if (!pause) return null;
  return pause.until !== null && Date.parse(pause.until) <= now.getTime() ? null : pause;
}

/** holds — whether a pause of this scope holds this action back: every disruptive action; auto-uncordon only under `all`. */
export const holds = (pause: ActivePause, action: DisruptiveAction): boolean => action !== 'uncordon' || pause.scope === 'all';

/** describePause — the pause in one sentence, for logs, readiness and the reasons recorded for what it held back. */
export function describePause(pause: ActivePause): string {
  const by = pause.source === 'configuration' ? 'by configuration (DISRUPTION_PAUSE)' : `by ${pause.pausedBy}`;
  const until = pause.until ? ` until ${pause.until}` : ' until resumed';
  const scope = pause.scope === 'all' ? ' (auto-uncordon included)' : '';
  return `disruptive actions paused ${by} at ${pause.pausedAt}${until}${scope}: ${pause.reason}`;
}

/**
 * checkPause — may `action` start at `now`? Not while a pause in force holds it; and not while the pause is unknown —
 * no answer from the owner yet, or the last one older than `maxAgeMs` (the owner unreachable): a service that cannot
 * tell whether the fleet is paused starts nothing disruptive (docs/pause.md#unknown).
 */
export function checkPause(reading: PauseReading, action: DisruptiveAction, now: Date, maxAgeMs: number): PauseCheck {
  if (!reading.known) return { go: false, reason: 'pause_unknown', detail: `the pause state is unknown (${reading.detail}): nothing disruptive starts until the owner answers` };
  const age = now.getTime() - reading.readAt.getTime();
  if (age > maxAgeMs) {
    return { go: false, reason: 'pause_unknown', detail: `the pause state is unknown (last read ${Math.round(age / 1000)} s ago): nothing disruptive starts until the owner answers` };
  }
  const pause = pauseInForce(reading.pause, now);
  if (pause && holds(pause, action)) return { go: false, reason: 'paused', detail: describePause(pause), pause };
  return { go: true };
}
