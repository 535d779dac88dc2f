import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** ReceivedSpan — one span as an OTLP/HTTP JSON export carried it, with its resource's service name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string; attributes: Record<string, string | number | boolean> }[];
  status?: { code?: number; message?: string };
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttr = { key: string; value: OtlpValue };
const attrs = (list: OtlpAttr[] | undefined): Record<string, string | number | boolean> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, a.value.stringValue ?? (a.value.intValue !== undefined ? Number(a.value.intValue) : undefined) ?? a.value.boolValue ?? a.value.doubleValue ?? '']));

/**
 * OtlpReceiver — a collector of the test's own: an HTTP server accepting OTLP/HTTP JSON exports on `/v1/traces`
 * (what the services send with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), keeping every span and every raw body (so
 * a test can look for what must never be exported). A protobuf body is answered 415 and counted.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly bodies: string[] = [];
  requests = 0;
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    let receiver!: OtlpReceiver;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver.requests++;
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
          res.writeHead(req.url === '/v1/traces' ? 415 : 404).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        receiver.bodies.push(body);
        receiver.take(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  private take(doc: { resourceSpans?: { resource?: { attributes?: OtlpAttr[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] }): void {
    for (const rs of doc.resourceSpans ?? []) {
      const service = String(attrs(rs.resource?.attributes)['service.name'] ?? '');
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? []) {
          const links = (s['links'] as { traceId: string; spanId: string; attributes?: OtlpAttr[] }[] | undefined) ?? [];
          this.spans.push({
            service,
            traceId: s['traceId'] as string,
            spanId: s['spanId'] as string,
            ...(s['parentSpanId'] ? { parentSpanId: s['parentSpanId'] as string } : {}),
            name: s['name'] as string,
            kind: Number(s['kind']),
            attributes: attrs(s['attributes'] as OtlpAttr[]),
            links: links.map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: attrs(l.attributes) })),
            ...(s['status'] ? { status: s['status'] as ReceivedSpan['status'] } : {}),
          });
        }
    }
  }

  /** trace — every span received so far of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
