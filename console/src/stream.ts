/**
 * EventStreamClient — the console's client of `GET /api/v1/stream` (server-sent events). EventSource cannot send an
 * Authorization header, and the token must never travel in a query string, so this reads the stream with fetch and
 * parses the SSE format itself. It reconnects by itself with back-off, sends `Last-Event-ID` so the gateway replays
 * what was missed, and reports a `reset` (events were lost: re-read the API) and a 401 (back to sign-in).
 * No imports and no DOM types beyond fetch/streams: the same file runs in the browser and in Node's tests.
 */
export interface StreamEvent {
  id: string;
  type: string;
  subject?: string;
  actor?: string;
  time: string;
  source?: string;
  data: unknown;
}

export type StreamStatus = 'connecting' | 'open' | 'retrying' | 'stopped';

export interface StreamClientOptions {
  /** The stream's URL (absolute, or relative to the page), e.g. `/api/v1/stream?types=node.%23`. */
  url: string;
  token: () => string | undefined;
  onEvent: (event: StreamEvent, streamId: string) => void;
  /** After every (re)connect: `replayed` says whether the gateway could give what was missed. */
  onOpen?: (info: { epoch: string; reconnect: boolean }) => void;
  /** Events were missed (gateway restart, too far behind): the caller re-reads what it shows. */
  onReset?: (reason: string) => void;
  onStatus?: (status: StreamStatus, detail?: string) => void;
  /** The gateway refused the token (401): the client stops; the caller signs the user out. */
  onUnauthorized?: (reason: string) => void;
  minRetryMs?: number;
  maxRetryMs?: number;
  /** No byte for this long (the gateway pings every 15 s) means a dead connection: reconnect. */
  idleTimeoutMs?: number;
  fetch?: typeof fetch;
}

interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/** parseSse — feeds text chunks, calls `emit` for each complete message (the WHATWG SSE parsing rules, minus retry). */
export function sseParser(emit: (m: SseMessage) => void): (chunk: string) => void {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  return (chunk: string) => {
    buffer += chunk;
    for (;;) {
      const nl = buffer.search(/\r\n|\r|\n/);
      if (nl < 0) return;
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (data.length > 0 || event) emit({ event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
        data = [];
        event = '';
        id = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id') id = value;
    }
  };
}

export class EventStreamClient {
  private abort?: AbortController;
  private stopped = false;
  private lastEventId?: string;
  private attempt = 0;
  private connectedOnce = false;
  private retryTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly o: StreamClientOptions) {}

  get lastId(): string | undefined {
    return this.lastEventId;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.abort?.abort();
    this.o.onStatus?.('stopped');
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const token = this.o.token();
    if (!token) {
      this.o.onUnauthorized?.('not signed in');
      return;
    }
    this.o.onStatus?.(this.connectedOnce ? 'retrying' : 'connecting');
    const abort = new AbortController();
    this.abort = abort;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const touch = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => abort.abort(), this.o.idleTimeoutMs ?? 40_000);
    };
    try {
      touch();
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
      if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
      const res = await (this.o.fetch ?? fetch)(this.o.url, { headers, signal: abort.signal });
      if (res.status === 401) {
        const body = (await res.json().catch(() => ({}))) as { message?: string };
        this.stopped = true;
        this.o.onStatus?.('stopped', 'unauthorized');
        this.o.onUnauthorized?.(body.message ?? 'the token was refused');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`stream answered HTTP ${res.status}`);
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      const reconnect = this.connectedOnce;
      const feed = sseParser((m) => this.dispatch(m, reconnect));
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        touch();
        feed(decoder.decode(value, { stream: true }));
      }
      throw new Error('stream ended');
    } catch (err) {
      if (this.stopped) return;
      const delay = Math.min(this.o.maxRetryMs ?? 15_000, (this.o.minRetryMs ?? 1000) * 2 ** Math.min(this.attempt, 6));
      this.attempt++;
      this.o.onStatus?.('retrying', `${(err as Error).message}; again in ${Math.round(delay / 100) / 10} s`);
      this.retryTimer = setTimeout(() => void this.connect(), delay);
    } finally {
      if (idle) clearTimeout(idle);
    }
  }

  private dispatch(m: SseMessage, reconnect: boolean): void {
    if (m.event === 'hello') {
      this.attempt = 0;
      this.connectedOnce = true;
      const hello = safeJson(m.data) as { epoch?: string } | undefined;
      this.o.onStatus?.('open');
      this.o.onOpen?.({ epoch: hello?.epoch ?? '', reconnect });
      // A first connection has no gap to fill; the page reads the API itself.
      if (reconnect && !this.lastEventId) this.o.onReset?.('reconnected');
      return;
    }
    if (m.event === 'reset') {
      const r = safeJson(m.data) as { reason?: string } | undefined;
      this.o.onReset?.(r?.reason ?? 'reset');
      return;
    }
    if (m.event === 'expired') return; // the stream ends; the reconnect meets a 401
    if (m.event !== 'message') return;
    const ev = safeJson(m.data) as StreamEvent | undefined;
    if (m.id) this.lastEventId = m.id;
    if (ev && typeof ev.type === 'string') this.o.onEvent(ev, m.id ?? '');
  }
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
