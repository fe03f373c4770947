import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log/logger.js';
import { addCaller, addChannel, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { startTracing, type Tracing } from './tracing.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpSpan {
  name: string;
  attributes: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

/** An OTLP/HTTP collector on loopback that keeps what it receives (JSON encoding). */
async function startCollector() {
  const received: OtlpExport[] = [];
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, paths, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : v?.boolValue);
};

describe('tracing over OTLP', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let tracing: Tracing;
  let h: RelayHarness;
  let failing: FakeOpenAI;

  beforeAll(async () => {
    collector = await startCollector();
    tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/` }, { version: 'v-test', nodeId: 'trace-node' }, createLogger('silent'));
    h = await startRelayHarness();
    await priceModels(h, ['m-traced']);
    failing = await startFakeOpenAI();
    failing.setFault({ status: 500 });
  });
  afterAll(async () => {
    await h.close();
    await failing.close();
    await collector.close();
  });

  it('exports one span per attempt with channel, model, retry and status; nothing when unset', async () => {
    await h.server.ctx.options.set('RetryTimes', '2');
    const bad = await addChannel(h.root, { base_url: failing.url, models: 'm-traced', priority: 10 });
    const good = await addChannel(h.root, { base_url: h.fake.url, models: 'm-traced', priority: 0 });
    const c = await addCaller(h);
    const r = await c.client.chat.completions.create({ model: 'm-traced', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const requestId = r.response.headers.get('x-oneapi-request-id');
    await tracing.shutdown();

    expect(collector.paths[0]).toMatch(/^POST \/v1\/traces application\/json/);
    const resource = collector.received[0]!.resourceSpans[0]!.resource.attributes;
    expect(resource).toEqual(expect.arrayContaining([{ key: 'service.name', value: { stringValue: 'modelgate' } }, { key: 'service.instance.id', value: { stringValue: 'trace-node' } }]));
    const spans = collector.received.flatMap((e) => e.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))).filter((s) => attr(s, 'modelgate.request_id') === requestId);
    expect(spans.map((s) => s.name)).toEqual(['relay.attempt', 'relay.attempt']);
    const [first, second] = spans as [OtlpSpan, OtlpSpan];
    expect([attr(first, 'modelgate.channel.id'), attr(first, 'modelgate.retry'), attr(first, 'http.response.status_code'), first.status?.code]).toEqual([bad, 0, 500, 2]);
    expect([attr(second, 'modelgate.channel.id'), attr(second, 'modelgate.retry'), attr(second, 'http.response.status_code')]).toEqual([good, 1, 200]);
    expect(attr(second, 'modelgate.model')).toBe('m-traced');

    // Off again (and when the variable is unset): requests make no export.
    const exports = collector.received.length;
    expect(await startTracing({}, { version: 'v', nodeId: 'n' }, createLogger('silent'))).toBeDefined();
    await c.client.chat.completions.create({ model: 'm-traced', messages: [{ role: 'user', content: 'again' }] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(collector.received.length).toBe(exports);
  });
});
