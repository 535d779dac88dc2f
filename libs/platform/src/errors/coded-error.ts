import { ErrorCodes, type ErrorBody, type ErrorCode, type FieldProblem } from '@nodes-manager/contracts';

/** The message of every INTERNAL answer: what went wrong is logged, never sent (docs/api.md, "Errors"). */
export const INTERNAL_MESSAGE = 'internal error';

/**
 * CodedError — a failure with a stable code that crosses process boundaries intact. Expected outcomes (not found,
 * conflict, not ours) are results in domain code; this is for the adapters and the bus. `cause` keeps the original
 * error of one made by {@link CodedError.from}, for the log only.
 */
export class CodedError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CodedError';
  }
  toBody(): ErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
  /**
   * from — any thrown value as a CodedError that is safe to answer with. A coded error (or its body) stays as it is;
   * a known dependency failure becomes SERVICE_UNAVAILABLE naming the dependency (`database unavailable`), never its
   * address; anything else is INTERNAL with the generic message. The original error is kept as `cause` for the log.
   */
  static from(err: unknown): CodedError {
    if (err instanceof CodedError) return err;
    const e = err as { code?: unknown; message?: unknown; details?: unknown };
    if (e && typeof e.code === 'string' && typeof e.message === 'string' && isErrorCode(e.code)) {
      return new CodedError(e.code, e.message, e.details);
    }
    const dependency = unavailableDependency(err);
    if (dependency) return new CodedError('SERVICE_UNAVAILABLE', `${dependency} unavailable`, { dependency }, { cause: err });
    return new CodedError('INTERNAL', INTERNAL_MESSAGE, undefined, { cause: err });
  }
}

const KNOWN = new Set<string>(ErrorCodes);
export const isErrorCode = (s: string): s is ErrorCode => KNOWN.has(s);

/**
 * validationFailed — the one VALIDATION_FAILED shape, from the gateway and from every service (docs/api.md):
 * `details.errors` lists `{in, field, message}`, each field by its real name; the message joins them.
 */
export function validationFailed(errors: readonly FieldProblem[], prefix?: string): CodedError {
  const text = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new CodedError('VALIDATION_FAILED', prefix ? `${prefix}: ${text}` : text, { errors: [...errors] });
}

/** notImplemented — the coded answer of a command whose capability has not landed yet (HTTP 501). */
export const notImplemented = (what: string): CodedError =>
  new CodedError('NOT_IMPLEMENTED', `${what} is not implemented yet`);

// ---- known dependency failures ----

/** Socket errors that mean "the other side is not there (now)". */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/**
 * SQLSTATEs of a database that is down, starting, shutting down or full: class 08 (connection exception), class 53
 * (insufficient resources), 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now).
 */
const DATABASE_DOWN = /^(08|53)|^57P0[1-3]$/;
/** node-postgres' own words for a connection it lost or could not get. */
const PG_CONNECTION_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

const dependencies: { name: string; host: string; port: string }[] = [];

/** The property by which a client's own sockets mark their errors with the dependency they reach (`database`). */
export const DEPENDENCY = 'dependency';

/**
 * registerDependency — names the endpoint of a dependency (`database`, `message broker`) so that a socket error
 * against it (which carries only an address) is answered as that dependency being unavailable.
 */
export function registerDependency(name: string, url: string | undefined, defaultPort?: number): void {
  if (!url) return;
  try {
    const u = new URL(url);
    const port = u.port || String(defaultPort ?? '');
    if (!dependencies.some((d) => d.name === name && d.host === u.hostname && d.port === port)) dependencies.push({ name, host: u.hostname, port });
  } catch {
    /* not a URL: nothing to name */
  }
}

/** unavailableDependency — which dependency a failure says is unavailable, if it is one of the known kinds. */
export function unavailableDependency(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { code?: unknown; message?: unknown; port?: unknown; address?: unknown; severity?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown; [DEPENDENCY]?: unknown };
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code) && typeof e[DEPENDENCY] === 'string') return e[DEPENDENCY];
  if (typeof e.code === 'string' && typeof e.severity === 'string' && DATABASE_DOWN.test(e.code)) return 'database';
  if (typeof e.message === 'string' && PG_CONNECTION_LOST.test(e.message)) return 'database';
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) {
    // Connecting to a name with several addresses fails as an AggregateError whose `errors` carry the port.
    const ports = new Set([e, ...(Array.isArray(e.errors) ? e.errors : [])].map((x) => (x as { port?: unknown })?.port).filter((p) => p !== undefined).map(String));
    const names = new Set(dependencies.filter((d) => ports.has(d.port)).map((d) => d.name));
    return names.size === 1 ? [...names][0] : 'dependency';
  }
  for (const inner of [e.driverError, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const found = unavailableDependency(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}
