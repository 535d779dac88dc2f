import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentRequestId } from './request-context.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const SECRET_KEY = /(secret|password|passwd|token|authorization|credential|private.?key|access.?key|cookie)/i;
/** A password in a connection URL: `scheme://user:PASSWORD@host`. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/@"\s]+:)([^@/"\s]+)@/gi;
const REDACTED = '[REDACTED]';

/**
 * stdout — one asynchronous pino destination per process, shared by every logger in it (the all-in-one process has a
 * logger per service module). Asynchronous: a log line never blocks the event loop on a slow pipe; pino flushes what
 * is buffered when the process exits.
 */
let stdout: DestinationStream | undefined;
const taps = new Set<(line: string) => void>();
const processDestination: DestinationStream = {
  write(s: string) {
    for (const tap of taps) tap(s);
    (stdout ??= pino.destination({ dest: 1, sync: false, minLength: 0 })).write(s);
  },
};

/**
 * JsonLogger — the Nest LoggerService of every service, over pino: one JSON object per line with stable keys
 * (`level`, `time`, `service`, `msg`, plus `context`, `requestId` and fields such as `node`, `decision`, `reason`,
 * `eventId`, `correlationId`). `requestId` comes from the request being served (see {@link currentRequestId}).
 *
 * Secrets never reach the output: values under secret-looking keys (at any depth), every registered secret value
 * wherever it appears, and passwords inside URLs become `[REDACTED]` — the last two on the serialised line, so a
 * secret inside a message or an error's stack is caught too. An exact repeat of the previous entry (same level,
 * message and fields) is counted instead of printed, and the count is logged before the next different entry.
 * See docs/stack.md for why pino.
 */
export class JsonLogger implements LoggerService {
  private static secrets = new Set<string>();
  private readonly pino: Logger;
  private lastKey = '';
  private repeats = 0;
  private context?: string;

  /** @param write — where lines go (without the newline); the process's stdout when omitted. */
  constructor(
    readonly service: string,
    level: LogLevel = 'info',
    private readonly write?: (line: string) => void,
  ) {
    const destination: DestinationStream = write ? { write: (s: string) => write(s.endsWith('\n') ? s.slice(0, -1) : s) } : processDestination;
    this.pino = pino(
      {
        level,
        base: { service },
        messageKey: 'msg',
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }), log: (fields) => sanitize(fields) as Record<string, unknown> },
        mixin: () => {
          const requestId = currentRequestId();
          return requestId ? { requestId } : {};
        },
        hooks: { streamWrite: redactLine },
      },
      destination,
    );
  }

  /** registerSecret — values that must never be printed (JWT secret, AWS keys, passwords in URLs). */
  static registerSecret(value: string | undefined): void {
    if (value && value.length >= 4) JsonLogger.secrets.add(value);
  }

  /**
   * tap — also hands every line written to the process's stdout (already redacted, newline included) to `listener`,
   * until the returned function is called; for tests that check what a service logged.
   */
  static tap(listener: (line: string) => void): () => void {
    taps.add(listener);
    return () => void taps.delete(listener);
  }

  static get registeredSecrets(): ReadonlySet<string> {
    return JsonLogger.secrets;
  }

  get level(): LogLevel {
    return this.pino.level as LogLevel;
  }

  setLevel(level: LogLevel): void {
    this.pino.level = level;
  }

  child(context: string): JsonLogger {
    const c = new JsonLogger(this.service, this.level, this.write);
    c.context = context;
    return c;
  }

  debug(msg: unknown, ...rest: unknown[]): void {
    this.emit('debug', msg, rest);
  }
  log(msg: unknown, ...rest: unknown[]): void {
    this.emit('info', msg, rest);
  }
  info(msg: unknown, fields?: Record<string, unknown>): void {
    this.emit('info', msg, fields ? [fields] : []);
  }
  warn(msg: unknown, ...rest: unknown[]): void {
    this.emit('warn', msg, rest);
  }
  error(msg: unknown, ...rest: unknown[]): void {
    this.emit('error', msg, rest);
  }
  verbose(msg: unknown, ...rest: unknown[]): void {
    this.emit('debug', msg, rest);
  }
  fatal(msg: unknown, ...rest: unknown[]): void {
    this.emit('error', msg, rest);
  }

  /** Nest's `(message, ...optionalParams)`: a trailing string is the context, an Error becomes `err`, objects merge as fields. */
  private emit(level: LogLevel, msg: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    let context = this.context;
    const fields: Record<string, unknown> = {};
    for (const r of rest) {
      if (typeof r === 'string') context = r;
      else if (r instanceof Error) fields['err'] = { message: r.message, stack: r.stack };
      else if (r && typeof r === 'object') Object.assign(fields, r);
    }
    if (context) fields['context'] = context;
    let text: string;
    if (msg instanceof Error) {
      text = msg.message;
      fields['err'] = { message: msg.message, stack: msg.stack };
    } else text = typeof msg === 'string' ? msg : JSON.stringify(msg);
    const requestId = currentRequestId();
    const key = `${level}\u0000${text}\u0000${requestId ?? ''}\u0000${safeJson(fields)}`;
    if (key === this.lastKey) {
      this.repeats++;
      return;
    }
    if (this.repeats > 0) this.pino.info({ repeats: this.repeats }, 'previous message repeated');
    this.repeats = 0;
    this.lastKey = key;
    this.pino[level](fields, text);
  }
}

export const isLogLevel = (v: unknown): v is LogLevel => LEVELS.includes(v as LogLevel);

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(Math.random()); // unserialisable (a cycle): never treat as a repeat
  }
}

/** sanitize — a copy in which string values under secret-looking keys are `[REDACTED]` (objects up to depth 6). */
function sanitize(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => sanitize(v, depth + 1));
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) && typeof v === 'string' ? REDACTED : sanitize(v, depth + 1);
  }
  return out;
}

/** redactLine — registered secret values and URL passwords, wherever they appear in the serialised line. */
function redactLine(line: string): string {
  let out = line;
  for (const s of JsonLogger.registeredSecrets) {
    if (out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out.replace(URL_PASSWORD, `$1${REDACTED}@`);
}
