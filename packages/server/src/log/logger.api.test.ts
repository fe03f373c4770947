import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturePino as capturingLogger } from '../test-support/capture-logger.js';
import { addCaller, addChannel, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

describe('one logger with the request id', () => {
  const { log, lines } = capturingLogger();
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ log });
    await priceModels(h, ['m-log-fail']);
  });
  afterAll(async () => {
    await h.close();
  });

  it('a relay failure is logged under the id the caller got back and the usage log keeps', async () => {
    // A port nobody listens on: the upstream call fails, the relay logs it and answers an error.
    await addChannel(h.root, { base_url: 'http://127.0.0.1:9', models: 'm-log-fail' });
    const c = await addCaller(h);
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm-log-fail', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBeGreaterThanOrEqual(500);
    const id = res.headers.get('x-oneapi-request-id');
    expect(id).toMatch(/^[0-9a-z]{10,}$/);
    const mine = lines.filter((l) => l.reqId === id);
    expect(mine.map((l) => l.msg)).toContain('upstream request failed');
    expect(mine.every((l) => typeof l.pid === 'number')).toBe(true);
  });

  it('a billed request stores the request id Fastify gave it', async () => {
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
    const c = await addCaller(h);
    const r = await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
    const id = r.response.headers.get('x-oneapi-request-id');
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.request_id).toBe(id);
  });
});
