import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ListeningFake {
  url: string;
  port: number;
  /** Aborts in-flight handlers, drops every connection and stops listening. */
  close: () => Promise<void>;
}

/**
 * The HTTP lifecycle every provider fake shares: one abort signal per request (fired when the
 * client goes away), a handler failure answered in the provider's own error shape, and a close
 * that never waits on a hanging stream.
 */
export async function serveFake(
  opts: { port?: number; host?: string },
  handle: (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => Promise<void>,
  answerBug: (res: ServerResponse, err: unknown) => void,
): Promise<ListeningFake> {
  const active = new Set<AbortController>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const controller = new AbortController();
    active.add(controller);
    res.on('close', () => {
      active.delete(controller);
      controller.abort();
    });
    handle(req, res, controller.signal).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else answerBug(res, err);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    port: address.port,
    close: async () => {
      for (const c of active) c.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    },
  };
}

/** The whole request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Query string and, for a POST, the form or JSON body, as one flat map (non-string JSON values as JSON). */
/** The request body as text and, when it parses, as JSON (a fake records what it got either way). */
export async function readJsonBody(req: IncomingMessage): Promise<{ text: string; body: unknown }> {
  const text = await readBody(req);
  try {
    return { text, body: text ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    return { text, body: undefined };
  }
}

export async function readFields(req: IncomingMessage, url: URL): Promise<Record<string, string>> {
  const fields = Object.fromEntries(url.searchParams);
  if (req.method !== 'POST') return fields;
  const text = await readBody(req);
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    for (const [k, v] of Object.entries(parsed)) fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
    return fields;
  }
  return { ...fields, ...Object.fromEntries(new URLSearchParams(text)) };
}
