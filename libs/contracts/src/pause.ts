import type { ServiceName } from './events.js';

/**
 * The fleet-wide pause of disruptive actions (docs/pause.md). Data only: what may be paused, the state the owner
 * answers, the request that pauses, and the data of the `disruptions.paused` / `disruptions.resumed` events.
 */

/** PAUSE_OWNER — the service that keeps the pause in its own table and answers `pause.get|set|clear`. */
export const PAUSE_OWNER: ServiceName = 'uncordon';

/**
 * DisruptiveActions — every action a pause holds back before it starts. `uncordon` (auto-uncordon) is restorative:
 * it is held only by a pause of scope `all`.
 */
export const DisruptiveActions = ['optimize', 'consolidate', 'fence', 'drain', 'pressure_relief', 'steer', 'uncordon'] as const;
export type DisruptiveAction = (typeof DisruptiveActions)[number];

/** PauseScopes — `disruptive` (default): every disruptive action; `all`: auto-uncordon too. */
export const PauseScopes = ['disruptive', 'all'] as const;
export type PauseScope = (typeof PauseScopes)[number];

/** PauseSources — who made a change: an operator through the API, the configuration at start, or `until` passing. */
export const PauseSources = ['api', 'configuration', 'expiry'] as const;
export type PauseSource = (typeof PauseSources)[number];

/** PauseRequest — `POST /api/v1/pause`. `until` is RFC 3339, in the future; without it the pause lasts until resumed. */
export interface PauseRequest {
  reason: string;
  until?: string;
  scope?: PauseScope;
}

/** PauseChange — one recorded change of the pause, newest first in {@link PauseView.changes}. */
export interface PauseChange {
  action: 'pause' | 'resume';
  /** Why: the operator's words for a pause; for a resume what ended it (the operator's words, `expired`, `configuration`). */
  reason: string;
  scope: PauseScope | null;
  until: string | null;
  actor: string;
  at: string;
  source: PauseSource;
}

/** ActivePause — the pause in force: who, why, since when, until when, what it holds. */
export interface ActivePause {
  reason: string;
  scope: PauseScope;
  pausedBy: string;
  pausedAt: string;
  until: string | null;
  source: PauseSource;
}

/** PauseView — the owner's answer (`pause.get`, `GET /api/v1/pause`): the pause in force, if any, and the last changes. */
export interface PauseView {
  paused: boolean;
  pause: ActivePause | null;
  /** The latest changes, newest first (at most 20). */
  changes: PauseChange[];
  /** When the owner read it (its clock). */
  readAt: string;
}

/** DisruptionsPausedData — `disruptions.paused`: published when a pause starts or is changed. */
export interface DisruptionsPausedData extends ActivePause {}

/** DisruptionsResumedData — `disruptions.resumed`: published when a pause ends (resumed, expired, or by configuration). */
export interface DisruptionsResumedData {
  resumedBy: string;
  resumedAt: string;
  /** `operator` (DELETE /api/v1/pause), `expired` (its `until` passed), `configuration` (DISRUPTION_PAUSE at start). */
  why: 'operator' | 'expired' | 'configuration';
  /** The pause that ended. */
  pause: ActivePause;
}
