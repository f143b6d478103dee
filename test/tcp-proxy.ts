/**
 * A TCP proxy in front of a server (PostgreSQL, say) whose faults a test controls. Kept apart from
 * helpers.ts, which opens servers and databases, so that a test of processes it starts itself (the
 * nginx recipe's) can cut their database without loading Meridian.
 */
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';

/**
 * How a `TcpProxy` treats traffic: `pass` forwards it; `refuse` stops listening, so new
 * connections are refused (ECONNREFUSED) while open ones keep flowing; `reset` resets every open
 * connection and every new one at once (ECONNRESET); `freeze` stops forwarding in both directions
 * without closing anything, new connections included, as a silent network partition does (what
 * was sent meanwhile is delivered when the proxy passes again).
 */
export type ProxyMode = 'pass' | 'refuse' | 'reset' | 'freeze';

interface ProxiedConnection {
  client: Socket;
  upstream: Socket | null;
}

/** A TCP proxy in front of a server (PostgreSQL, say) whose faults the test controls. */
export class TcpProxy {
  private mode: ProxyMode = 'pass';
  private readonly connections = new Set<ProxiedConnection>();
  private server: NetServer | null = null;

  private constructor(
    private readonly target: { host: string; port: number },
    /** Where the proxy listens; it keeps the port when it listens again after `refuse`. */
    public port: number,
  ) {}

  /** A proxy on a free port of 127.0.0.1 forwarding to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.listen();
    return proxy;
  }

  /** `url` (a `postgres://` URL, say) with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  async set(mode: ProxyMode): Promise<void> {
    this.mode = mode;
    if (mode === 'refuse') this.stopListening();
    else if (!this.server) await this.listen();
    for (const connection of this.connections) {
      if (mode === 'reset') this.reset(connection);
      else if (mode === 'freeze') this.pause(connection);
      else this.resume(connection);
    }
  }

  /** Closes the listener and destroys every connection. */
  async close(): Promise<void> {
    this.stopListening();
    for (const connection of this.connections) this.reset(connection);
  }

  private async listen(): Promise<void> {
    const server = createNetServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  private stopListening(): void {
    // Open connections are left alone: close() only stops accepting.
    this.server?.close();
    this.server = null;
  }

  private accept(client: Socket): void {
    const connection: ProxiedConnection = { client, upstream: null };
    client.on('error', () => {});
    if (this.mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    this.connections.add(connection);
    client.on('close', () => {
      this.connections.delete(connection);
      connection.upstream?.destroy();
    });
    if (this.mode === 'freeze') client.pause();
    else this.connectUpstream(connection);
  }

  private connectUpstream(connection: ProxiedConnection): void {
    const { client } = connection;
    const upstream = connect(this.target.port, this.target.host);
    connection.upstream = upstream;
    upstream.on('error', () => {});
    upstream.on('close', () => client.destroy());
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  /** Copies `from` to `to`, holding back while `to` is full or the proxy is frozen. */
  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk) => {
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => {
          if (this.mode !== 'freeze') from.resume();
        });
      }
    });
  }

  private pause(connection: ProxiedConnection): void {
    connection.client.pause();
    connection.upstream?.pause();
  }

  private resume(connection: ProxiedConnection): void {
    if (!connection.upstream) {
      this.connectUpstream(connection);
    }
    connection.client.resume();
    connection.upstream!.resume();
  }

  private reset(connection: ProxiedConnection): void {
    if (!connection.client.destroyed) connection.client.resetAndDestroy();
    if (connection.upstream && !connection.upstream.destroyed) connection.upstream.resetAndDestroy();
    this.connections.delete(connection);
  }
}
