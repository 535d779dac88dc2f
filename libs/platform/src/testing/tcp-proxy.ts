import net from 'node:net';

/**
 * TcpProxy — a loopback TCP proxy in front of a real server (RabbitMQ, Postgres) whose link a test can cut and
 * restore, to show what a service does when its broker goes away without stopping the shared broker itself.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private up = true;
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    let proxy!: TcpProxy;
    const server = net.createServer((client) => {
      if (!proxy.up) {
        client.destroy();
        return;
      }
      const upstream = net.connect(targetPort, targetHost);
      proxy.sockets.add(client).add(upstream);
      const close = () => {
        client.destroy();
        upstream.destroy();
        proxy.sockets.delete(client);
        proxy.sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  /** url — `target` with host and port replaced by the proxy's. */
  url(target: string): string {
    const u = new URL(target);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** cut — drop every open connection and refuse new ones. */
  cut(): void {
    this.up = false;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.up = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise((r) => this.server.close(r));
  }
}
