import { arrayOf, bool, closed, nullable, nullableStr, oneOf, str, time, type JsonSchema } from '../json-schema.js';
import { PauseScopes, PauseSources } from '../pause.js';
import type { CommandSchema } from './command-schema.js';

/** ACTIVE_PAUSE_SCHEMA — the pause in force (ActivePause; docs/pause.md). */
const ACTIVE_PAUSE_SCHEMA: JsonSchema = closed({
  reason: str(),
  scope: oneOf(PauseScopes),
  pausedBy: str('who paused: a JWT sub, or `config:DISRUPTION_PAUSE`'),
  pausedAt: time(),
  until: nullable(time()),
  source: oneOf(PauseSources),
});

const PAUSE_CHANGE_SCHEMA: JsonSchema = closed({
  action: oneOf(['pause', 'resume']),
  reason: str(),
  scope: nullable(oneOf(PauseScopes)),
  until: nullableStr(),
  actor: str(),
  at: time(),
  source: oneOf(PauseSources),
});

/** PAUSE_VIEW_SCHEMA — the owner's answer (PauseView): the pause in force, if any, and the latest changes. */
export const PAUSE_VIEW_SCHEMA: JsonSchema = closed({
  paused: bool(),
  pause: nullable(ACTIVE_PAUSE_SCHEMA),
  changes: arrayOf(PAUSE_CHANGE_SCHEMA),
  readAt: time(),
});

export const PAUSE_COMMAND_SCHEMAS = {
  'pause.get': {
    summary: 'The fleet-wide pause of disruptive actions: the pause in force, if any, and its latest changes (asked by every service each scan interval).',
    request: closed({}),
    reply: PAUSE_VIEW_SCHEMA,
  },
  'pause.set': {
    summary: 'Pause every disruptive action fleet-wide, as the caller, with a reason and optionally an end (`until`) and a scope.',
    request: closed({ reason: str(), until: time(), scope: oneOf(PauseScopes) }, ['until', 'scope']),
    reply: PAUSE_VIEW_SCHEMA,
  },
  'pause.clear': {
    summary: 'Resume disruptive actions, as the caller.',
    request: closed({}),
    reply: PAUSE_VIEW_SCHEMA,
  },
} as const satisfies Record<string, CommandSchema>;
