import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Path and query exactly as the adapter sent them. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A loopback hop in front of the fake OpenAI upstream for adapters whose URLs differ from
 * OpenAI's (Azure deployments, DeepSeek's root paths, Custom full URLs): it records what the
 * adapter sent and forwards it to the fake under the canonical `/v1/...` path. With
 * `passthrough` (a fake that checks its own URL and auth, such as the Anthropic one) the request
 * is forwarded unchanged; `keepHost` also keeps the Host header the adapter signed (SigV4).
 */
export async function startRecordingProxy(target: string, opts: { passthrough?: boolean; keepHost?: boolean } = {}) {
  const seen: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '').split('?')[0]!;
      if (opts.passthrough) {
        const up = request(`${target}${req.url ?? ''}`, { method: req.method, headers: opts.keepHost ? req.headers : { ...req.headers, host: new URL(target).host } }, (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
        return;
      }
      const canonical = path.endsWith('/embeddings')
        ? '/v1/embeddings'
        : path.endsWith('/chat/completions') || !/\/(completions|embeddings)$/.test(path)
          ? '/v1/chat/completions'
          : '/v1/completions';
      const headers = { ...req.headers, host: new URL(target).host, authorization: 'Bearer fake' };
      const up = request(`${target}${canonical}`, { method: req.method, headers }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
