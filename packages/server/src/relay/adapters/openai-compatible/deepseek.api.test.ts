import { FAKE_REASONING_TEXT, FAKE_VENDOR_KEY, FAKE_VENDOR_TEXT, startFakeVendor, vendorPromptTokens, type FakeVendor } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * DeepSeek (43) through its fake, the official SDK as caller: the base without `/v1`, the
 * reasoning stream passed through and billed, cache hits billed at the cache ratio (0.1 for
 * deepseek-*), and the `thinking_to_content` channel setting folding reasoning into `content`.
 */
let h: RelayHarness;
let ds: FakeVendor;
const CHAT = 'deepseek-chat';
const R1 = 'deepseek-reasoner';
/** Served by a channel with `thinking_to_content`, mapped to deepseek-reasoner. */
const R1_THINK = 'deepseek-r1-think';
const messages = [{ role: 'user' as const, content: 'Please answer this question about caches and tokens' }];
// DeepSeek V3.2 prices (deepseek-chat / deepseek-reasoner): completion ratio 1.5, cache reads 0.1.
const charge = (prompt: number, completion: number, cached = 0) => expectedCharge({ modelRatio: 2, completionRatio: 1.5, cacheRatio: 0.1 }, { prompt, completion, cached });

beforeAll(async () => {
  h = await startRelayHarness();
  ds = await startFakeVendor('deepseek');
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [CHAT]: 2, [R1]: 2, [R1_THINK]: 2 }));
  // The alias is billed under its own name: priced like deepseek-reasoner through the option.
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [R1_THINK]: 1.5 }));
  await addChannel(h.root, { type: 43, key: FAKE_VENDOR_KEY, base_url: ds.url, models: `${CHAT},${R1}` });
  await addChannel(h.root, { type: 43, key: FAKE_VENDOR_KEY, base_url: ds.url, models: R1_THINK, model_mapping: JSON.stringify({ [R1_THINK]: R1 }), setting: JSON.stringify({ thinking_to_content: true }) });
});
afterAll(async () => {
  await ds.close();
  await h.close();
});

const lastBody = () => ds.requests.at(-1)!.body as Record<string, unknown>;

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

type Delta = { content?: string | null; reasoning_content?: string | null };
async function stream(c: TestCaller, model: string) {
  let content = '';
  let reasoning = '';
  let usage: Record<string, unknown> | undefined;
  for await (const chunk of await c.client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } })) {
    const d = chunk.choices[0]?.delta as Delta | undefined;
    content += d?.content ?? '';
    reasoning += d?.reasoning_content ?? '';
    if (chunk.usage) usage = chunk.usage as unknown as Record<string, unknown>;
  }
  return { content, reasoning, usage };
}

describe('DeepSeek', () => {
  it('cache hits are billed at the cache ratio, from prompt_tokens_details and from the older prompt_cache_hit_tokens', async () => {
    const c = await addCaller(h);
    ds.setCacheHit(4);
    const cost = await spent(c, () => c.client.chat.completions.create({ model: CHAT, messages }));
    expect(ds.requests.at(-1)).toMatchObject({ path: '/chat/completions' });
    const prompt = vendorPromptTokens(lastBody());
    expect(cost).toBe(charge(prompt, 5, 4));
    ds.setCacheHit(6, true);
    const legacy = await spent(c, () => c.client.chat.completions.create({ model: CHAT, messages }));
    expect(legacy).toBe(charge(prompt, 5, 6));
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => Number(l.quota))).toEqual([charge(prompt, 5, 4), charge(prompt, 5, 6)]);
    expect(JSON.parse(String(logs[1]!.other))).toMatchObject({ cache_tokens: 6, cache_ratio: 0.1 });
    ds.setCacheHit(0);
  });

  it('the reasoning stream passes through: reasoning_content deltas, then content; reasoning billed in the completion', async () => {
    const c = await addCaller(h);
    let s: Awaited<ReturnType<typeof stream>> | undefined;
    const cost = await spent(c, async () => {
      s = await stream(c, R1);
    });
    const prompt = vendorPromptTokens(lastBody());
    expect(s!.reasoning).toBe(FAKE_REASONING_TEXT);
    expect(s!.content).toBe(FAKE_VENDOR_TEXT);
    expect(s!.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 } });
    expect(cost).toBe(charge(prompt, 9));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: R1, prompt_tokens: prompt, completion_tokens: 9 });
  });

  it('thinking_to_content folds the reasoning into content as <think>…</think>, stream and not; the charge is unchanged', async () => {
    const c = await addCaller(h);
    let s: Awaited<ReturnType<typeof stream>> | undefined;
    const cost = await spent(c, async () => {
      s = await stream(c, R1_THINK);
    });
    const prompt = vendorPromptTokens(lastBody());
    expect(lastBody().model).toBe(R1);
    expect(s!.reasoning).toBe('');
    expect(s!.content).toBe(`<think>\n${FAKE_REASONING_TEXT}\n</think>\n${FAKE_VENDOR_TEXT}`);
    expect(cost).toBe(charge(prompt, 9));
    let message: Delta | undefined;
    const plain = await spent(c, async () => {
      message = (await c.client.chat.completions.create({ model: R1_THINK, messages })).choices[0]!.message as Delta;
    });
    expect(message!.content).toBe(`<think>\n${FAKE_REASONING_TEXT}\n</think>\n${FAKE_VENDOR_TEXT}`);
    expect(message!.reasoning_content).toBeUndefined();
    expect(plain).toBe(charge(prompt, 9));
  });

  it('without the setting a non-stream reply keeps reasoning_content beside content', async () => {
    const c = await addCaller(h);
    const r = await c.client.chat.completions.create({ model: R1, messages });
    expect(r.choices[0]!.message as Delta).toMatchObject({ content: FAKE_VENDOR_TEXT, reasoning_content: FAKE_REASONING_TEXT });
  });

  it('a refused key is DeepSeek`s authentication_error: nothing charged', async () => {
    const id = await addChannel(h.root, { type: 43, key: 'sk-wrong', base_url: ds.url, models: 'deepseek-chat-bad', model_mapping: JSON.stringify({ 'deepseek-chat-bad': CHAT }) });
    await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [CHAT]: 2, [R1]: 2, [R1_THINK]: 2, 'deepseek-chat-bad': 2 }));
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'deepseek-chat-bad', messages }).catch((e: unknown) => e)) as { status: number };
    expect(err.status).toBe(401);
    expect(await balances(h, c)).toEqual(before);
    expect(id).toBeGreaterThan(0);
  });
});
