#!/usr/bin/env node
/**
 * Runs the SMTP capture standalone, with an HTTP side door to read what arrived:
 *   node packages/testkit/dist/smtp-cli.js --port 2525 --http-port 2526
 * GET /messages → [{from, to, subject, text, html}] (newest last); DELETE /messages clears them.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startFakeSmtp } from './smtp-fake/server.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string' }, 'http-port': { type: 'string' } } });
  const smtp = await startFakeSmtp({ port: Number(values.port ?? 2525) });
  const api = http.createServer((req, res) => {
    if (req.url?.split('?')[0] !== '/messages') {
      res.writeHead(404).end();
      return;
    }
    if (req.method === 'DELETE') smtp.reset();
    const list = smtp.messages.map(({ from, to, subject, text, html }) => ({ from, to, subject, text, html }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
  });
  await new Promise<void>((resolve) => api.listen(Number(values['http-port'] ?? 2526), '127.0.0.1', resolve));
  process.stdout.write(`fake SMTP on 127.0.0.1:${smtp.port}, messages at http://127.0.0.1:${(api.address() as { port: number }).port}/messages\n`);
  const stop = () => {
    api.close();
    void smtp.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
