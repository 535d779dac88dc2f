import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { CLOCK, CodedError, matchesBinding, type Clock } from '@nodes-manager/platform';
import { ApiRoute } from './api-docs.js';
import { EventStreamHub, type StreamedEvent } from './event-stream.js';
import { parseInput } from './validation.js';

export const EVENT_STREAM_HUB = Symbol('EVENT_STREAM_HUB');

/** How many streams one gateway serves at once; more answer 503 (each is an open connection and a listener). */
export const STREAM_MAX_CLIENTS = 500;
/** A comment line this often keeps proxies from closing an idle stream and lets the client notice a dead one. */
export const STREAM_PING_MS = 15_000;
/** What the browser waits before reconnecting (the SSE `retry` field); the console's own client backs off further. */
export const STREAM_RETRY_MS = 2000;
/** A client this far behind (bytes not yet taken by its socket) is cut off; it reconnects and replays. */
const STREAM_MAX_BUFFERED_BYTES = 1 << 20;

const bindingPattern = z.string().regex(/^[a-z0-9*#-]+(\.[a-z0-9*#-]+)*$/, 'must be event type patterns such as node.# or optimize.planned');
const streamQuery = z.strictObject({
  types: z
    .preprocess((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v), z.array(bindingPattern).min(1, 'must name at least one pattern').max(20, 'must name at most 20 patterns'))
    .optional(),
});

/**
 * StreamController — `GET /api/v1/stream`: `nodes.events` as server-sent events for the console (docs/console.md).
 * The bearer token is checked like on every route (the header; never a query string, so it does not reach access
 * logs). Each message is `id: <epoch>.<seq>` and `data: <CloudEvent JSON>`; `event: hello` opens the stream,
 * `event: reset` says "events were missed: re-read the API", and the stream ends when the token expires.
 */
@Controller('api/v1')
export class StreamController {
  constructor(
    @Inject(EVENT_STREAM_HUB) private readonly hub: EventStreamHub,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('stream')
  @ApiRoute({
    tag: 'stream',
    summary: 'Live events (nodes.events) as server-sent events',
    description: [
      'A `text/event-stream` of every CloudEvent the system publishes, in the order this gateway received them (`types` narrows it with topic patterns).',
      'Each message carries `id: <epoch>.<seq>`; send the last one back as `Last-Event-ID` when reconnecting to get what was missed.',
      '`event: hello` opens the stream; `event: reset` means events were missed (the gateway restarted, or the client was too far behind): re-read the API.',
      'The stream closes when the token expires. EventSource cannot send headers: use a fetch-based client with `Authorization: Bearer`.',
    ].join(' '),
    query: streamQuery,
    ok: { status: 200, description: 'The event stream (stays open)', contentType: 'text/event-stream', schema: { type: 'string', description: 'Server-Sent Events: each `data:` line is one CloudEvent of nodes.events as JSON (docs/asyncapi.yaml)' } },
    errors: { 503: 'too many open streams on this gateway' },
  })
  @ApiProduces('text/event-stream')
  @ApiResponse({ status: 200, description: 'The event stream (stays open)', content: { 'text/event-stream': { schema: { type: 'string', description: 'server-sent events: `id`, optional `event`, `data` (a CloudEvent as JSON)' } } } })
  stream(@Query() query: unknown, @Req() req: Request, @Res() res: Response): void {
    const { types } = parseInput(streamQuery, query, 'query');
    if (this.hub.closing) {
      res.setHeader('Connection', 'close');
      throw new CodedError('SERVICE_UNAVAILABLE', 'this gateway is shutting down; retry');
    }
    if (this.hub.size >= STREAM_MAX_CLIENTS) throw new CodedError('SERVICE_UNAVAILABLE', `this gateway already serves ${STREAM_MAX_CLIENTS} streams; retry later`);
    const wanted = (e: StreamedEvent) => !types || types.some((t) => matchesBinding(t, e.event.type));

    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    // The connection ends with the stream: never reused for another request (which could outlive a shutdown).
    res.setHeader('Connection', 'close');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);
    req.socket.setTimeout(0);

    let open = true;
    const write = (chunk: string) => {
      if (!open) return;
      res.write(chunk);
      if (res.writableLength > STREAM_MAX_BUFFERED_BYTES) close();
    };
    const send = (e: StreamedEvent) => {
      if (wanted(e)) write(`id: ${e.id}\ndata: ${JSON.stringify(e.event)}\n\n`);
    };

    // Subscribe before replaying, and drop what the replay already covered, so nothing falls between the two.
    const pending: StreamedEvent[] = [];
    let replaying = true;
    const unlisten = this.hub.listen((e) => (replaying ? pending.push(e) : send(e)), () => close());
    write(`retry: ${STREAM_RETRY_MS}\n`);
    write(`event: hello\ndata: ${JSON.stringify({ epoch: this.hub.epoch, lastEventId: this.hub.lastId })}\n\n`);
    const lastEventId = req.header('last-event-id');
    let upTo = 0;
    if (lastEventId) {
      const replay = this.hub.replaySince(lastEventId);
      if (replay.kind === 'reset') write(`event: reset\ndata: ${JSON.stringify({ reason: replay.reason })}\n\n`);
      else for (const e of replay.events) (send(e), (upTo = e.seq));
    }
    replaying = false;
    for (const e of pending) if (e.seq > upTo) send(e);

    const ping = setInterval(() => write(`: ping\n\n`), STREAM_PING_MS);
    ping.unref();
    const expiry = tokenExpiry(req);
    const expire = expiry === undefined ? undefined : setTimeout(() => {
      write(`event: expired\ndata: ${JSON.stringify({ reason: 'the token expired' })}\n\n`);
      close();
    }, Math.min(2 ** 31 - 1, Math.max(0, expiry - this.clock.now().getTime())));
    expire?.unref();

    function close() {
      if (!open) return;
      open = false;
      unlisten();
      clearInterval(ping);
      if (expire) clearTimeout(expire);
      // The socket goes with the stream: nothing else is ever sent on it (Connection: close).
      res.end(() => res.socket?.destroy());
    }
    req.on('close', close);
    res.on('close', close);
    res.on('error', close);
  }
}

/** tokenExpiry — the verified bearer token's `exp` in ms (the JWT guard has checked signature and expiry already). */
function tokenExpiry(req: Request): number | undefined {
  const token = /^Bearer\s+(.+)$/i.exec(req.header('authorization') ?? '')?.[1];
  const claims = token ? jwt.decode(token) : null;
  return claims && typeof claims === 'object' && typeof claims['exp'] === 'number' ? claims['exp'] * 1000 : undefined;
}
