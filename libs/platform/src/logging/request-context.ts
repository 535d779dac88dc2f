import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** RequestContext — what every log line written while serving one request carries. */
export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * REQUEST_ID_HEADER — the HTTP header a caller may set and the gateway always answers with; the same id travels on
 * the command (`meta.requestId`) to the service that handles it, so one request can be followed across processes
 * (docs/architecture.md, "Request ids").
 */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's id is kept only if it is short and printable (it goes into logs and headers); otherwise a new one. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** requestIdFrom — the caller's `X-Request-Id` when acceptable, else a fresh UUID. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && ACCEPTABLE_REQUEST_ID.test(value) ? value : randomUUID();
}

/** runWithRequestId — `fn` and everything it starts asynchronously log with this request id. */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

/** currentRequestId — the id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
