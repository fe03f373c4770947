import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/**
 * A channel's `max_input_tokens` (spec entity Channel): a prompt longer than a channel accepts is
 * sent to another channel of the model, and refused — before any upstream call, nothing charged —
 * when none accepts it.
 */
describe('channel max_input_tokens', () => {
  let h: RelayHarness;
  const long = 'word '.repeat(200);
  const keyOf = (i: number) => h.fake.requests[i]?.headers.authorization;

  beforeAll(async () => {
    h = await startRelayHarness();
    await h.root.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'limited-model': 1, 'tiny-model': 1 }) });
    // The small channel has the higher priority: it is chosen first whenever the prompt fits.
    await addChannel(h.root, { base_url: h.fake.url, key: 'sk-small', models: 'limited-model', max_input_tokens: 50, priority: 10 });
    await addChannel(h.root, { base_url: h.fake.url, key: 'sk-large', models: 'limited-model', priority: 0 });
    await addChannel(h.root, { base_url: h.fake.url, key: 'sk-tiny', models: 'tiny-model', max_input_tokens: 50 });
  });
  afterAll(async () => h?.close());

  it('a prompt within the limit goes to the limited channel; a longer one to the channel that takes it, without using a retry', async () => {
    const c = await addCaller(h);
    let n = h.fake.requests.length;
    await c.client.chat.completions.create({ model: 'limited-model', messages: [{ role: 'user', content: 'short' }] });
    expect(keyOf(n)).toBe('Bearer sk-small');
    n = h.fake.requests.length;
    await c.client.chat.completions.create({ model: 'limited-model', messages: [{ role: 'user', content: long }] });
    expect(h.fake.requests.length).toBe(n + 1);
    expect(keyOf(n)).toBe('Bearer sk-large');
  });

  it('refuses a prompt no channel of the model takes: 400 context_length_exceeded, nothing sent, nothing charged or logged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const n = h.fake.requests.length;
    const err = (await c.client.chat.completions.create({ model: 'tiny-model', messages: [{ role: 'user', content: long }] }).catch((e: unknown) => e)) as { status: number; code: string; message: string };
    expect(err.status).toBe(400);
    expect(err.code).toBe('context_length_exceeded');
    expect(err.message).toMatch(/The prompt has \d+ tokens, more than the channels of this model accept \(at most 50\)/);
    expect(h.fake.requests.length).toBe(n);
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('the limit is saved, shown and cleared through the channel API', async () => {
    const found = await h.root.get('/api/channel/search?keyword=');
    const tiny = (found.body.data as Array<{ id: number; key: string; models: string; max_input_tokens: number }>).find((ch) => ch.models === 'tiny-model')!;
    expect(tiny.max_input_tokens).toBe(50);
    expect((await h.root.put('/api/channel/', { id: tiny.id, max_input_tokens: 0 })).body.success).toBe(true);
    const c = await addCaller(h);
    const res = await c.client.chat.completions.create({ model: 'tiny-model', messages: [{ role: 'user', content: long }] });
    expect(res.choices[0]!.message.content).toBeTruthy();
  });
});
