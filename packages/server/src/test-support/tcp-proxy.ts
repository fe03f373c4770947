import net from 'node:net';

/**
 * A TCP hop in front of a real server (PostgreSQL, Redis) that a test can cut and restore, to see
 * how a node behaves while a dependency is unreachable: `cut()` drops every open connection and
 * refuses new ones at once (like a stopped server); `restore()` forwards again.
 */
export async function startTcpProxy(targetUrl: string) {
  const target = new URL(targetUrl);
  const defaults: Record<string, number> = { 'redis:': 6379, 'postgres:': 5432, 'postgresql:': 5432, 'mysql:': 3306 };
  const targetPort = Number(target.port || defaults[target.protocol]);
  const open = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) return client.destroy();
    const upstream = net.connect(targetPort, target.hostname);
    open.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    /** `targetUrl` with its host and port replaced by the proxy's. */
    url(original: string = targetUrl): string {
      const u = new URL(original);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut(): void {
      cut = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore(): void {
      cut = false;
    },
    close(): Promise<void> {
      this.cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
