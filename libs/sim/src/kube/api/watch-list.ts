// WatchList (streaming initial lists, KEP-3157) as kube-apiserver 1.34 validates it, and how an older server answers.
import { ApiError } from '../errors.js';

/**
 * WatchListMode — how the simulated API server answers `sendInitialEvents`: `serve` as kube-apiserver 1.34 (WatchList
 * on by default); `refuse` as a server without the WatchList feature (1.26–1.33 with the gate off: 422 Invalid);
 * `ignore` as a server or proxy that drops the parameters it does not know (a legacy watch: initial state as ADDED
 * when asked from "" or "0", and no initial-events-end bookmark).
 */
export type WatchListMode = 'serve' | 'refuse' | 'ignore';

const NOT_OLDER_THAN = 'NotOlderThan';

const forbidden = (field: string, message: string): ApiError => invalidListOptions(field, 'FieldValueForbidden', `Forbidden: ${message}`);

function invalidListOptions(field: string, reason: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: 'meta.k8s.io',
    kind: 'ListOptions',
    causes: [{ reason, message, field }],
  });
}

/**
 * watchListOptions — the `sendInitialEvents` of a request (undefined when absent), after the checks of apimachinery's
 * ListOptions validation: `sendInitialEvents` is forbidden on a list, needs `resourceVersionMatch=NotOlderThan` on a
 * watch, and only a server with WatchList accepts it; `resourceVersionMatch` on a watch needs `sendInitialEvents` and
 * must be `NotOlderThan`. In `ignore` mode both parameters are dropped unread.
 */
export function watchListOptions(q: URLSearchParams, watch: boolean, mode: WatchListMode): boolean | undefined {
  if (mode === 'ignore' && watch) {
    q.delete('sendInitialEvents');
    q.delete('resourceVersionMatch');
    return undefined;
  }
  const raw = q.get('sendInitialEvents');
  const send = raw === null ? undefined : raw === 'true' || raw === '1';
  if (!watch) {
    if (send !== undefined) throw forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
    return undefined;
  }
  const match = q.get('resourceVersionMatch') ?? '';
  if (send !== undefined) {
    if (match !== NOT_OLDER_THAN) throw forbidden('resourceVersionMatch', `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`);
    if (mode === 'refuse') throw forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
  }
  if (match !== '') {
    if (send === undefined) throw forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    if (match !== NOT_OLDER_THAN) throw invalidListOptions('resourceVersionMatch', 'FieldValueNotSupported', `Unsupported value: "${match}": supported values: "${NOT_OLDER_THAN}"`);
    if (q.get('continue')) throw forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
  }
  return send;
}

/** tooLargeResourceVersion — a WatchList asked for a version the server has not reached (it gives up waiting). */
export function tooLargeResourceVersion(asked: number, current: number): ApiError {
  return new ApiError(504, 'Timeout', `Too large resource version: ${asked}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}
