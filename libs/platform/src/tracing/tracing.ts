import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type SpanContext } from '@opentelemetry/api';

/**
 * Tracing helpers (docs/observability.md). Everything here goes through `@opentelemetry/api` only: until a process
 * starts the SDK (tracing-sdk.ts, only when the `OTEL_*` variables ask for it) each helper is a branch on one
 * boolean — no span object, no header, no context switch. With tracing on, work that is not part of a trace
 * (background loops, informer events, probes) makes no span either: only a request, or what it set off, is traced.
 */

export { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Context, type Link, type Span, type SpanContext };

let enabled = false;
let shutdownHook: (() => Promise<void>) | undefined;

/** tracingOn — this process exports spans. */
export const tracingOn = (): boolean => enabled;

/** setTracing — called by startTracing (tracing-sdk.ts) once the provider is registered, and by its shutdown. */
export function setTracing(on: boolean, shutdown?: () => Promise<void>): void {
  enabled = on;
  shutdownHook = shutdown;
}

/** flushTracing — ends the exporter after sending what is buffered, at most `ms`; nothing when tracing is off. */
export async function flushTracing(ms = 3_000): Promise<void> {
  const hook = shutdownHook;
  if (!hook) return;
  shutdownHook = undefined;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([hook().catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

export const TRACER_NAME = 'nodes-manager';
const tracer = () => trace.getTracer(TRACER_NAME);

/** tracedContext — the active context when it holds a recording span (a traced request's work), else undefined. */
export function tracedContext(): Context | undefined {
  if (!enabled) return undefined;
  const ctx = context.active();
  return trace.getSpan(ctx)?.isRecording() ? ctx : undefined;
}

/** spanContextOf — the span context `ctx` holds, if any. */
export const spanContextOf = (ctx: Context): SpanContext | undefined => trace.getSpanContext(ctx);

/** SpanOptions — what a span is: its kind, attributes and links; `parent` instead of the active context. */
export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  parent?: Context;
}

/**
 * inSpan — runs `fn` inside a new span (child of `parent`, else of the active context), ended when `fn` settles;
 * a throw marks it ERROR with the error's message. Meant for code that already decided to trace (`tracingOn()`).
 */
export async function inSpan<T>(name: string, o: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = o.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: o.kind ?? SpanKind.INTERNAL, ...(o.attributes ? { attributes: o.attributes } : {}), ...(o.links ? { links: o.links } : {}) }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * inChildSpan — {@link inSpan} when the caller's work is traced, else `fn` alone (with no span): a client call made
 * by a background loop makes no trace of its own.
 */
export function inChildSpan<T>(name: string, o: Omit<SpanOptions, 'parent'>, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  const parent = tracedContext();
  return parent ? inSpan(name, { ...o, parent }, fn) : fn(undefined);
}

/** startSpan — a span the caller ends (e.g. when an HTTP answer is sent); parent as for {@link inSpan}. */
export function startSpan(name: string, o: SpanOptions = {}): Span {
  return tracer().startSpan(name, { kind: o.kind ?? SpanKind.INTERNAL, ...(o.attributes ? { attributes: o.attributes } : {}), ...(o.links ? { links: o.links } : {}) }, o.parent ?? context.active());
}

/** failSpan — ERROR status with the error's message (never its stack or the request that caused it). */
export function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** withContext — runs `fn` with `ctx` active. */
export const withContext = <T>(ctx: Context, fn: () => T): T => context.with(ctx, fn);

/** contextWithSpan — `ctx` (default: the active one) with `span` as its current span. */
export const contextWithSpan = (span: Span, ctx: Context = context.active()): Context => trace.setSpan(ctx, span);

/** TraceCarrier — the W3C trace context as headers (`traceparent`, `tracestate`): on AMQP messages and outbox rows. */
export type TraceCarrier = Record<string, string>;

/** carrierOf — the W3C headers of `ctx` (default: the active context); undefined when it holds no span. */
export function carrierOf(ctx: Context = context.active()): TraceCarrier | undefined {
  if (!enabled || !trace.getSpanContext(ctx)) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** contextFrom — the remote context the headers carry (AMQP headers, HTTP headers, a stored carrier). */
export function contextFrom(headers: Record<string, unknown> | undefined | null): Context {
  if (!headers) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, {
    keys: (h) => Object.keys(h),
    get: (h, k) => {
      const v = h[k] ?? h[k.toLowerCase()];
      return typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : Array.isArray(v) ? (v.filter((x) => typeof x === 'string') as string[]) : undefined;
    },
  });
}

/** spanContextFrom — the span context the headers carry, when they carry a valid one. */
export function spanContextFrom(headers: Record<string, unknown> | undefined | null): SpanContext | undefined {
  const sc = trace.getSpanContext(contextFrom(headers));
  return sc && trace.isSpanContextValid(sc) ? sc : undefined;
}

/** hasRemoteParent — the headers carry a trace this process should continue. */
export const hasRemoteParent = (headers: Record<string, unknown> | undefined | null): boolean => enabled && spanContextFrom(headers) !== undefined;

/** Attribute names of the messaging semantic conventions (RabbitMQ) used on command and event spans. */
export const MESSAGING = {
  system: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destination: 'messaging.destination.name',
  routingKey: 'messaging.rabbitmq.destination.routing_key',
  messageId: 'messaging.message.id',
  conversationId: 'messaging.message.conversation_id',
  batchCount: 'messaging.batch.message_count',
  bodySize: 'messaging.message.body.size',
} as const;
