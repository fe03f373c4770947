#!/usr/bin/env node
/**
 * Runs the fake Epay gateway standalone, for a local ModelGate's online top-up:
 *   node packages/testkit/dist/epay-cli.js --port 9300 --pid 1001 --key fake-epay-key
 * Set PayAddress to the printed URL, EpayId and EpayKey to the same pid and key. While it runs:
 * GET /__fake/orders, GET /__fake/notifications, and POST /__fake/notify (form or JSON:
 * out_trade_no, times, concurrent, forge, money, trade_status, method, url) to replay or forge
 * a notification.
 */
import { parseArgs } from 'node:util';
import { startFakeEpay } from './epay-fake/index.js';

const USAGE = `Usage: modelgate-fake-epay [options]
  --port <n>     port to listen on (default 9300, 0 = random)
  --host <addr>  interface to bind (default 127.0.0.1)
  --pid <id>     merchant id (default 1001)
  --key <key>    merchant key (default fake-epay-key)
  --help`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, host: { type: 'string' }, pid: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port ?? 9300);
  if (!Number.isInteger(port) || port < 0) throw new Error(`--port must be a port number, got "${values.port}"`);
  const fake = await startFakeEpay({ port, host: values.host ?? '127.0.0.1', pid: values.pid, key: values.key });
  process.stdout.write(`Fake Epay gateway listening on ${fake.url} (merchant ${fake.pid})\n`);
  const stop = (): void => {
    void fake.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
  process.exit(1);
});
