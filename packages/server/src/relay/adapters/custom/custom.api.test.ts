import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * Streams of Custom (type 8) and OpenAI-compatible channels ask for their usage chunk
 * (docs/providers.md "Stream usage"), so they are billed by the upstream's count. The fake
 * reports 3 reasoning tokens on top of the 5 content words: a bill of 8 completion tokens (and
 * the fake's 2 prompt tokens for "Hi there") can only come from the upstream's usage.
 */

const messages = [{ role: 'user' as const, content: 'Hi there' }];
const UPSTREAM = { prompt: 2, completion: 8 };
/** The reply "Hello from the fake OpenAI" counted locally by the tokenizer ("OpenAI" is two tokens). */
const LOCAL_COMPLETION = 6;

describe('stream usage on Custom and OpenAI-compatible channels', () => {
  let h: RelayHarness;

  beforeAll(async () => {
    h = await startRelayHarness({ fake: { reasoningTokens: 3 } });
    await priceModels(h, ['su-custom', 'su-custom-off', 'su-ohmygpt', 'su-360-on', 'su-mistral']);
    const full = `${h.fake.url}/v1/chat/completions`;
    await addChannel(h.root, { type: 8, base_url: full, models: 'su-custom' });
    await addChannel(h.root, { type: 8, base_url: full, models: 'su-custom-off', setting: JSON.stringify({ stream_usage: false }) });
    await addChannel(h.root, { type: 7, base_url: h.fake.url, models: 'su-ohmygpt' });
    await addChannel(h.root, { type: 19, base_url: h.fake.url, models: 'su-360-on', setting: JSON.stringify({ stream_usage: true }) });
    await addChannel(h.root, { type: 42, base_url: h.fake.url, models: 'su-mistral' });
  });
  afterAll(async () => {
    await h.close();
  });

  /** Streams once; returns what the upstream was sent, the chunks' usage fields, the log row and what the caller paid. */
  async function stream(c: TestCaller, model: string, clientAsks: boolean) {
    const before = await balances(h, c);
    h.fake.reset();
    const usages: unknown[] = [];
    let text = '';
    const s = await c.client.chat.completions.create({ model, messages, stream: true, ...(clientAsks ? { stream_options: { include_usage: true } } : {}) });
    for await (const chunk of s) {
      if (chunk.usage) usages.push(chunk.usage);
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(text).toBe('Hello from the fake OpenAI');
    const sent = h.fake.requests.at(-1)!.body as Record<string, unknown>;
    const log = (await consumeLogs(h, c.userId)).at(-1)!;
    const after = await balances(h, c);
    // Ratio 1, completion ratio 1: the quota is the token count; user and token pay it exactly.
    expect(Number(log.quota)).toBe(Number(log.prompt_tokens) + Number(log.completion_tokens));
    expect(before.quota - after.quota).toBe(Number(log.quota));
    expect(before.remain - after.remain).toBe(Number(log.quota));
    return { sent, usages, log };
  }

  it('Custom asks for the usage chunk and bills the upstream count; a client that did not ask gets no usage chunk', async () => {
    const c = await addCaller(h);
    const { sent, usages, log } = await stream(c, 'su-custom', false);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(usages).toEqual([]);
    expect(log).toMatchObject({ channel_id: expect.anything(), prompt_tokens: UPSTREAM.prompt, completion_tokens: UPSTREAM.completion, quota: UPSTREAM.prompt + UPSTREAM.completion });
  });

  it('Custom passes the usage chunk on to a client that asked, with the billed numbers', async () => {
    const c = await addCaller(h);
    const { sent, usages, log } = await stream(c, 'su-custom', true);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject({ prompt_tokens: UPSTREAM.prompt, completion_tokens: UPSTREAM.completion });
    expect(log).toMatchObject({ prompt_tokens: UPSTREAM.prompt, completion_tokens: UPSTREAM.completion });
  });

  it('a Custom channel with {"stream_usage": false} never sends stream_options (no retry needed) and counts locally', async () => {
    const c = await addCaller(h);
    const { sent, log } = await stream(c, 'su-custom-off', true);
    expect(sent).not.toHaveProperty('stream_options');
    expect(Number(log.completion_tokens)).toBe(LOCAL_COMPLETION);
  });

  it('an OpenAI reseller (OhMyGPT) asks; {"stream_usage": true} makes a vendor that does not ask by default (360) ask', async () => {
    const c = await addCaller(h);
    for (const model of ['su-ohmygpt', 'su-360-on']) {
      const { sent, log } = await stream(c, model, false);
      expect(sent.stream_options, model).toEqual({ include_usage: true });
      expect(log, model).toMatchObject({ prompt_tokens: UPSTREAM.prompt, completion_tokens: UPSTREAM.completion });
    }
  });

  it('Mistral, which refuses unknown fields, is not sent stream_options', async () => {
    const c = await addCaller(h);
    const { sent } = await stream(c, 'su-mistral', true);
    expect(sent).not.toHaveProperty('stream_options');
  });
});
