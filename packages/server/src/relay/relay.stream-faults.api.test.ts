import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

let h: RelayHarness;
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

beforeAll(async () => {
  h = await startRelayHarness({ fake: { chunkCount: 8 } });
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
});
afterAll(() => h.close());

async function waitForLog(userId: number) {
  for (let i = 0; i < 100; i++) {
    const logs = await consumeLogs(h, userId);
    if (logs.length) return logs[0]!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no log');
}

describe('broken streams (docs/relay-billing.md)', () => {
  it('upstream breaks mid-stream: charges the forwarded part and ends with an error frame', async () => {
    const c = await addCaller(h);
    // role frame + 2 content frames, then the socket is reset.
    h.fake.setFault({ disconnectAfterChunks: 3, times: 1 });
    const before = await balances(h, c);
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4', messages, stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":"Hello"');
    expect(text).toContain('stream_broken');
    expect(text).not.toContain('[DONE]');
    const log = await waitForLog(c.userId);
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    expect(Number(log.completion_tokens)).toBe(countTokens('Hello from'));
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(Number(log.quota));
    expect(Number(log.quota)).toBe(expectedCharge({ model: 'gpt-4' }, { prompt: Number(log.prompt_tokens), completion: Number(log.completion_tokens) }));
  });

  it('client disconnects mid-stream: the upstream is stopped and what was delivered is charged', async () => {
    const c = await addCaller(h);
    h.fake.setFault({ chunkDelayMs: 50, times: 1 });
    const controller = new AbortController();
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4', messages, stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let got = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      got += new TextDecoder().decode(value);
      if (got.includes('"content":" from"')) break;
    }
    expect(got).toContain('"content":" from"');
    const upstream = h.fake.requests.at(-1)!;
    expect(upstream.closedEarly).toBeUndefined();
    controller.abort();
    const log = await waitForLog(c.userId);
    // The gateway cancelled its upstream call instead of letting the generation run on.
    for (let i = 0; i < 100 && !upstream.closedEarly; i++) await new Promise((r) => setTimeout(r, 20));
    expect(upstream.closedEarly).toBe(true);
    // Not the full 8-word reply: only what had been generated before the client left.
    expect(Number(log.completion_tokens)).toBeGreaterThan(0);
    expect(Number(log.completion_tokens)).toBeLessThan(8);
    expect(await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute()).toHaveLength(0);
  });

  it('client leaves before the first byte: the upstream call is cancelled at once, nothing is charged', async () => {
    const c = await addCaller(h);
    h.fake.setFault({ delayMs: 10_000, times: 1 });
    const before = await balances(h, c);
    const seen = h.fake.requests.length;
    const controller = new AbortController();
    const sent = fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4', messages, stream: true }),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    for (let i = 0; i < 100 && h.fake.requests.length === seen; i++) await new Promise((r) => setTimeout(r, 20));
    const upstream = h.fake.requests.at(-1)!;
    await new Promise((r) => setTimeout(r, 200));
    expect(upstream.closedEarly).toBeUndefined();
    const left = Date.now();
    controller.abort();
    await sent;
    // Well before the upstream's 10 s first byte.
    for (let i = 0; i < 100 && !upstream.closedEarly; i++) await new Promise((r) => setTimeout(r, 20));
    expect(upstream.closedEarly).toBe(true);
    expect(Date.now() - left).toBeLessThan(3_000);
    for (let i = 0; i < 100 && (await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute()).length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });
});
