import type { LoggerService } from '@nestjs/common';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /(secret|password|passwd|token|authorization|credential|private.?key|access.?key)/i;

/**
 * JsonLogger — one JSON object per line with stable keys (`time`, `level`, `service`, `msg`, plus fields such as
 * `node`, `decision`, `reason`, `eventId`, `correlationId`). Values of secret-looking keys and every registered
 * secret value are replaced with `[REDACTED]` wherever they appear, so a secret cannot reach the log by accident.
 */
export class JsonLogger implements LoggerService {
  private static secrets = new Set<string>();
  private lastLine = '';
  private repeats = 0;

  constructor(
    readonly service: string,
    private level: LogLevel = 'info',
    private readonly write: (line: string) => void = (l) => process.stdout.write(l + '\n'),
  ) {}

  /** registerSecret — values that must never be printed (JWT secret, AWS keys, passwords in URLs). */
  static registerSecret(value: string | undefined): void {
    if (value && value.length >= 4) JsonLogger.secrets.add(value);
  }

  setLevel(level: LogLevel): void {
    this.level = level;
  }

  child(context: string): JsonLogger {
    const c = new JsonLogger(this.service, this.level, this.write);
    c.context = context;
    return c;
  }
  private context?: string;

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

  private emit(level: LogLevel, msg: unknown, rest: unknown[]): void {
    if (ORDER[level] < ORDER[this.level]) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, service: this.service };
    let context = this.context;
    const fields: Record<string, unknown> = {};
    for (const r of rest) {
      if (typeof r === 'string') context = r;
      else if (r instanceof Error) fields['err'] = { message: r.message, stack: r.stack };
      else if (r && typeof r === 'object') Object.assign(fields, r);
    }
    if (context) entry['context'] = context;
    if (msg instanceof Error) {
      entry['msg'] = msg.message;
      fields['err'] = { message: msg.message, stack: msg.stack };
    } else entry['msg'] = typeof msg === 'string' ? msg : JSON.stringify(msg);
    const line = redact(JSON.stringify({ ...entry, ...(sanitize(fields) as Record<string, unknown>) }));
    // Suppress exact repeats of the same message (ignoring the timestamp), counting them.
    const key = line.slice(line.indexOf('"level"'));
    if (key === this.lastLine) {
      this.repeats++;
      return;
    }
    if (this.repeats > 0) this.write(JSON.stringify({ time: entry['time'], level: 'info', service: this.service, msg: 'previous message repeated', repeats: this.repeats }));
    this.repeats = 0;
    this.lastLine = key;
    this.write(line);
  }
}

function sanitize(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => sanitize(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) && typeof v === 'string' ? '[REDACTED]' : sanitize(v, depth + 1);
  }
  return out;
}

function redact(line: string): string {
  let out = line;
  for (const s of JsonLogger['secrets']) {
    if (out.includes(s)) out = out.split(s).join('[REDACTED]');
  }
  // Passwords inside connection URLs.
  return out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@"\s]+:)([^@/"\s]+)@/gi, '$1[REDACTED]@');
}
