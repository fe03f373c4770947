import { randomBytes } from 'node:crypto';
import net from 'node:net';

/**
 * A loopback TCP hop between ModelGate and something it depends on — PostgreSQL, MySQL, Redis, an
 * upstream provider — that a test scripts while traffic flows: add latency, refuse new connections,
 * reset open ones, blackhole (accept and never answer), drip bytes slowly, cut each connection
 * after N bytes, turn what the target sends into garbage; `restore()` forwards faithfully again.
 * Faults apply to bytes at the moment they pass, so a change takes effect on open connections too.
 */
export interface FaultProxy {
  /** `127.0.0.1:<port>` of the proxy. */
  readonly host: string;
  readonly port: number;
  /** `original` (default: the target URL) with its host and port replaced by the proxy's. */
  url(original?: string): string;
  /** Connections open now (client side). */
  readonly connections: number;
  /** Each chunk, in either direction, and each new upstream connection wait `ms` first. */
  latency(ms: number): void;
  /** New connections are reset as soon as they are accepted (like a port nobody listens on). */
  refuse(): void;
  /** Resets (RST) every open connection now; new ones are still forwarded. */
  reset(): void;
  /** `refuse()` and `reset()`: the target is gone (a stopped server). */
  cut(): void;
  /** Connections are accepted and kept, and nothing passes either way until `restore()` (a partition, a hung host). */
  blackhole(): void;
  /** What the target sends reaches the client `bytes` at a time, one piece every `everyMs`. */
  drip(bytes: number, everyMs: number): void;
  /** Each connection is reset once `bytes` more have passed from the target to the client. */
  cutAfter(bytes: number): void;
  /** What the target sends is replaced by random bytes of the same length. */
  garbage(): void;
  /** Writes `data` (random bytes by default) to every open client as if the target had sent it. */
  inject(data?: Buffer): void;
  /** Every fault off: bytes pass at once and unchanged. Connections already reset stay closed. */
  restore(): void;
  /** Resets every connection and stops listening. */
  close(): Promise<void>;
}

const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'rediss:': 6379, 'postgres:': 5432, 'postgresql:': 5432, 'mysql:': 3306, 'http:': 80, 'https:': 443 };

interface Faults {
  latencyMs: number;
  refuse: boolean;
  blackhole: boolean;
  drip: { bytes: number; everyMs: number } | null;
  cutAfter: number | null;
  garbage: boolean;
}

const clean = (): Faults => ({ latencyMs: 0, refuse: false, blackhole: false, drip: null, cutAfter: null, garbage: false });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Parses `postgres://…`, `redis://…`, `http://…` or `host:port` into where to connect. */
function targetOf(target: string): { host: string; port: number; url: string | null } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    const u = new URL(target);
    const port = Number(u.port || DEFAULT_PORTS[u.protocol]);
    if (!port) throw new Error(`fault proxy: no port in ${target}`);
    return { host: u.hostname.replace(/^\[|\]$/g, ''), port, url: target };
  }
  const m = /^(.*):(\d+)$/.exec(target);
  if (!m) throw new Error(`fault proxy: expected a URL or host:port, got ${target}`);
  return { host: m[1]!, port: Number(m[2]), url: null };
}

/** One direction of a connection: chunks go through the faults in order, with back-pressure. */
class Lane {
  private queue: Buffer[] = [];
  private running = false;
  /** Bytes passed since `cutAfter` was set (target → client lanes only). */
  counted = 0;

  constructor(
    private readonly from: net.Socket,
    private readonly to: () => net.Socket | null,
    private readonly faults: Faults,
    private readonly downstream: boolean,
    private readonly kill: () => void,
    /** Settles once `to()` can take bytes (the upstream socket has connected). */
    private readonly ready: Promise<void> = Promise.resolve(),
  ) {
    from.on('data', (chunk: Buffer) => {
      this.queue.push(chunk);
      if (this.queue.length > 8) from.pause();
      void this.run();
    });
  }

  async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const chunk = this.queue.shift()!;
        if (this.queue.length <= 8) this.from.resume();
        await this.pass(chunk);
      }
    } finally {
      this.running = false;
    }
  }

  private async pass(chunk: Buffer): Promise<void> {
    const f = this.faults;
    await this.ready;
    // Held, not dropped: bytes in flight when the path comes back arrive, as TCP would deliver them.
    while (f.blackhole) await sleep(20);
    if (f.latencyMs > 0) await sleep(f.latencyMs);
    let data = chunk;
    if (this.downstream && f.garbage) data = randomBytes(data.length);
    if (this.downstream && f.cutAfter !== null) {
      const room = f.cutAfter - this.counted;
      if (data.length >= room) {
        this.write(data.subarray(0, Math.max(0, room)));
        this.kill();
        return;
      }
      this.counted += data.length;
    }
    if (this.downstream && f.drip) {
      const { bytes, everyMs } = f.drip;
      for (let at = 0; at < data.length; at += bytes) {
        if (at > 0) await sleep(everyMs);
        if (!this.write(data.subarray(at, at + bytes))) return;
      }
      return;
    }
    this.write(data);
  }

  private write(data: Buffer): boolean {
    const to = this.to();
    if (!to || to.destroyed) return false;
    if (data.length > 0) to.write(data);
    return true;
  }
}

/** Starts a proxy on 127.0.0.1 (port `opts.port` or a free one) in front of `target`. */
export async function startFaultProxy(target: string, opts: { port?: number } = {}): Promise<FaultProxy> {
  const where = targetOf(target);
  const faults = clean();
  const open = new Set<{ client: net.Socket; upstream: net.Socket | null; down: Lane | null; kill: () => void }>();

  const server = net.createServer((client) => {
    if (faults.refuse) return void client.resetAndDestroy();
    const conn = { client, upstream: null as net.Socket | null, down: null as Lane | null, kill: () => {} };
    conn.kill = () => {
      if (!client.destroyed) client.resetAndDestroy();
      if (conn.upstream && !conn.upstream.destroyed) conn.upstream.resetAndDestroy();
      open.delete(conn);
    };
    open.add(conn);
    client.on('error', conn.kill).on('close', conn.kill);
    // Client bytes wait in their lane until the upstream socket has connected.
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => (connected = resolve));
    new Lane(client, () => conn.upstream, faults, false, conn.kill, ready);
    const connect = () => {
      if (client.destroyed) return;
      if (faults.blackhole) return void setTimeout(connect, 50);
      const upstream = net.connect(where.port, where.host);
      conn.upstream = upstream;
      upstream.on('error', conn.kill).on('close', conn.kill);
      upstream.on('connect', connected);
      conn.down = new Lane(upstream, () => client, faults, true, conn.kill);
    };
    if (faults.latencyMs > 0) setTimeout(connect, faults.latencyMs);
    else connect();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  const resetAll = () => {
    for (const c of [...open]) c.kill();
  };
  return {
    host: '127.0.0.1',
    port,
    url(original = where.url ?? `tcp://${where.host}:${where.port}`) {
      const u = new URL(original);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      // `http://host:1234` stays without the trailing slash URL adds, so paths can be appended.
      const s = u.toString();
      return !original.endsWith('/') && s.endsWith('/') && u.pathname === '/' ? s.slice(0, -1) : s;
    },
    get connections() {
      return open.size;
    },
    latency(ms) {
      faults.latencyMs = ms;
    },
    refuse() {
      faults.refuse = true;
    },
    reset: resetAll,
    cut() {
      faults.refuse = true;
      resetAll();
    },
    blackhole() {
      faults.blackhole = true;
    },
    drip(bytes, everyMs) {
      if (bytes < 1) throw new Error('fault proxy: drip needs at least one byte per piece');
      faults.drip = { bytes, everyMs };
    },
    cutAfter(bytes) {
      faults.cutAfter = bytes;
      for (const c of open) if (c.down) c.down.counted = 0;
    },
    garbage() {
      faults.garbage = true;
    },
    inject(data = randomBytes(64)) {
      for (const c of open) if (!c.client.destroyed) c.client.write(data);
    },
    restore() {
      Object.assign(faults, clean());
    },
    close() {
      faults.refuse = true;
      resetAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
