import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CannedReply {
  status: number;
  body: string;
  contentType?: string;
}

/**
 * A loopback HTTP listener standing in for whatever an admin might point a channel at (an
 * attacker's host, an internal service): it records every request and answers `reply`.
 */
export async function startCaptureListener(initial: CannedReply = { status: 200, body: '{}', contentType: 'application/json' }) {
  const seen: CapturedRequest[] = [];
  let reply = initial;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain; charset=utf-8' });
      res.end(reply.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    answer(next: CannedReply) {
      reply = next;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type CaptureListener = Awaited<ReturnType<typeof startCaptureListener>>;
