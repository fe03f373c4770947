import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/** RELAY_FIRST_BYTE_TIMEOUT: a stream whose upstream sends nothing in time moves to another channel. */
let h: RelayHarness;
let slow: FakeOpenAI;
const messages = [{ role: 'user' as const, content: 'Hi there' }];

beforeAll(async () => {
  h = await startRelayHarness({ env: { RELAY_FIRST_BYTE_TIMEOUT: '1' } });
  slow = await startFakeOpenAI();
  await priceModels(h, ['m-slow', 'm-allslow']);
});
afterAll(async () => {
  await slow.close();
  await h.close();
});

describe('timeout before the first byte', () => {
  it('retries a stream on a second channel when the first sends no byte in time', async () => {
    await h.server.ctx.options.set('RetryTimes', '2');
    const bad = await addChannel(h.root, { base_url: slow.url, models: 'm-slow', priority: 10 });
    const good = await addChannel(h.root, { base_url: h.fake.url, models: 'm-slow', priority: 0 });
    slow.setFault({ delayMs: 5000 });
    const c = await addCaller(h);
    const stream = await c.client.chat.completions.create({ model: 'm-slow', messages, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the fake OpenAI');
    expect(slow.requests).toHaveLength(1);
    // The timed-out attempt was abandoned, not left running.
    expect(slow.requests[0]!.closedEarly).toBe(true);
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    expect(Number(logs[0]!.channel_id)).toBe(good);
    expect(JSON.parse(logs[0]!.other).admin_info.use_channel).toEqual([String(bad), String(good)]);
  });

  it('answers 504 and charges nothing when no channel sends a first byte', async () => {
    await h.server.ctx.options.set('RetryTimes', '2');
    await addChannel(h.root, { base_url: slow.url, models: 'm-allslow' });
    slow.setFault({ delayMs: 5000 });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = await c.client.chat.completions.create({ model: 'm-allslow', messages, stream: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });
});
