// The floor (docs/architecture.md#performance-budgets): a bare node:http + undici Pool pass-through proxy. Request body
// buffered, response relayed with a plain write loop. No Node gateway can beat this on a machine.
import http from 'node:http';
import { Pool } from 'undici';

const upstream = process.argv[2];
// argv[3]: optional JSON of the upstream's auth headers (the Anthropic floor: x-api-key, anthropic-version).
const auth = process.argv[3] ? JSON.parse(process.argv[3]) : { authorization: 'Bearer floor' };
const pool = new Pool(upstream, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000 });

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  try {
    const up = await pool.request({
      path: req.url,
      method: req.method,
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json', ...auth },
      body: Buffer.concat(chunks),
    });
    res.writeHead(up.statusCode, { 'content-type': up.headers['content-type'] ?? 'application/json' });
    for await (const chunk of up.body) res.write(chunk);
    res.end();
  } catch {
    res.writeHead(502).end();
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('disconnect', () => process.exit(0));
