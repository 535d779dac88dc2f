import net from 'node:net';

type Mode = 'up' | 'cut' | 'blackhole';

interface Link {
  client: net.Socket;
  upstream?: net.Socket;
}

/**
 * TcpProxy — a loopback TCP fault proxy in front of a real server (RabbitMQ, Postgres, the Kubernetes API
 * simulator), so a test can break the link the way networks and servers break without stopping the shared server:
 * - {@link cut}: every open connection closed, new ones refused (a server that is gone), until {@link restore};
 * - {@link reset}: every open connection reset (TCP RST, as when the server's host dies); new ones still work;
 * - {@link blackhole}: connections stay open but nothing passes either way, new ones hang (a partition), until
 *   {@link restore}, when what was held flows again;
 * - {@link delay}: every chunk forwarded after `ms`.
 */
export class TcpProxy {
  private readonly links = new Set<Link>();
  private mode: Mode = 'up';
  private delayMs = 0;
  private readonly held: (() => void)[] = [];
  /** Connections accepted since start, for tests that check a reconnect happened. */
  accepted = 0;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    let proxy!: TcpProxy;
    const server = net.createServer((client) => proxy.accept(client));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port, targetHost, targetPort);
    return proxy;
  }

  /** forUrl — a proxy in front of the host and port of `target` (amqp://, postgres://, http:// URLs). */
  static async forUrl(target: string): Promise<TcpProxy> {
    const u = new URL(target);
    const port = Number(u.port || ({ 'amqp:': 5672, 'postgres:': 5432, 'postgresql:': 5432, 'http:': 80 } as Record<string, number>)[u.protocol]);
    return TcpProxy.start(u.hostname, port);
  }

  private accept(client: net.Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'cut') {
      client.destroy();
      return;
    }
    this.accepted++;
    const link: Link = { client };
    this.links.add(link);
    const drop = () => {
      this.links.delete(link);
      client.destroy();
      link.upstream?.destroy();
    };
    client.on('close', drop);
    const connect = () => {
      if (client.destroyed) return;
      const upstream = net.connect(this.targetPort, this.targetHost);
      link.upstream = upstream;
      upstream.on('error', () => undefined).on('close', drop);
      this.forward(client, upstream);
      this.forward(upstream, client);
    };
    if (this.mode === 'blackhole') {
      client.pause();
      this.held.push(connect);
    } else connect();
  }

  private forward(from: net.Socket, to: net.Socket): void {
    from.on('data', (chunk: Buffer) => {
      const send = () => {
        if (!to.destroyed) to.write(chunk);
      };
      if (this.delayMs > 0) setTimeout(send, this.delayMs);
      else send();
    });
  }

  /** url — `target` with host and port replaced by the proxy's. */
  url(target: string): string {
    const u = new URL(target);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** open — connections through the proxy right now. */
  get open(): number {
    return this.links.size;
  }

  /** cut — close every open connection and refuse new ones until {@link restore}. */
  cut(): void {
    this.mode = 'cut';
    for (const l of [...this.links]) {
      l.client.destroy();
      l.upstream?.destroy();
    }
    this.links.clear();
  }

  /** reset — reset every open connection (RST to both sides); new connections are accepted as usual. */
  reset(): void {
    for (const l of [...this.links]) {
      l.client.resetAndDestroy();
      l.upstream?.resetAndDestroy();
    }
    this.links.clear();
  }

  /** blackhole — nothing passes on open connections, new ones hang, until {@link restore}. */
  blackhole(): void {
    this.mode = 'blackhole';
    for (const l of this.links) {
      l.client.pause();
      l.upstream?.pause();
    }
  }

  /** delay — forward every chunk `ms` late (0 turns it off). */
  delay(ms: number): void {
    this.delayMs = ms;
  }

  /** restore — back to a working link: accepted again, held connections and data flow. */
  restore(): void {
    this.mode = 'up';
    this.delayMs = 0;
    for (const l of this.links) {
      l.client.resume();
      l.upstream?.resume();
    }
    for (const connect of this.held.splice(0)) connect();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise((r) => this.server.close(r));
  }
}
