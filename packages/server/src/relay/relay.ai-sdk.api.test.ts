import { createOpenAI } from '@ai-sdk/openai';
import { expectedChatUsage } from '@modelgate/testkit';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/** The Vercel AI SDK (`ai` + `@ai-sdk/openai`) as a caller: a second real client besides `openai`. */
let h: RelayHarness;
const prompt = 'Hello there friend';

beforeAll(async () => {
  h = await startRelayHarness();
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
});
afterAll(() => h.close());

/** gpt-4: model ratio 15, completion ratio 2, group ratio 1 (reference §5.1, spec §9). */
function expectedQuota(): number {
  const u = expectedChatUsage({ messages: [{ role: 'user', content: prompt }] });
  return expectedCharge({ model: 'gpt-4' }, { prompt: u.prompt_tokens, completion: u.completion_tokens });
}

function provider(key: string) {
  return createOpenAI({ apiKey: `sk-${key}`, baseURL: `${h.server.url}/v1` });
}

describe('Vercel AI SDK through the gateway', () => {
  it('generateText: the reply arrives and the bill is the formula, on user, token and log', async () => {
    const c = await addCaller(h, { quota: 1_000_000, remain: 400_000 });
    const before = await balances(h, c);
    const res = await generateText({ model: provider(c.key).chat('gpt-4'), prompt, maxRetries: 0 });
    expect(res.text).toBe('Hello from the fake OpenAI');
    const u = expectedChatUsage({ messages: [{ role: 'user', content: prompt }] });
    expect(res.usage.inputTokens).toBe(u.prompt_tokens);
    expect(res.usage.outputTokens).toBe(u.completion_tokens);

    const expected = expectedQuota();
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    expect(Number(logs[0]!.quota)).toBe(expected);
    expect(logs[0]!.is_stream).toBe(0);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    expect(before.remain - after.remain).toBe(expected);
    expect(after.userUsed - before.userUsed).toBe(expected);
    expect(after.tokenUsed - before.tokenUsed).toBe(expected);
  });

  it('streamText: text and usage stream through, billed exactly once by the formula', async () => {
    const c = await addCaller(h, { quota: 1_000_000, remain: 400_000 });
    const before = await balances(h, c);
    const result = streamText({ model: provider(c.key).chat('gpt-4'), prompt, maxRetries: 0 });
    let text = '';
    for await (const part of result.textStream) text += part;
    expect(text).toBe('Hello from the fake OpenAI');
    const usage = await result.usage;
    const u = expectedChatUsage({ messages: [{ role: 'user', content: prompt }] });
    // The SDK asks for usage (stream_options.include_usage), so the usage chunk is passed on.
    expect(usage.inputTokens).toBe(u.prompt_tokens);
    expect(usage.outputTokens).toBe(u.completion_tokens);

    const expected = expectedQuota();
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    expect(Number(logs[0]!.quota)).toBe(expected);
    expect(logs[0]!.is_stream).toBe(1);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    expect(before.remain - after.remain).toBe(expected);
    expect(await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute()).toHaveLength(0);
  });
});
