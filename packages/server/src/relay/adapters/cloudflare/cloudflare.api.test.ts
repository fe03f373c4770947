import { expectedChatUsage, FAKE_CLOUDFLARE_ACCOUNT, startFakeCloudflare, type FakeCloudflare } from '@modelgate/testkit';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/** Cloudflare Workers AI (39) through its OpenAI-compatible endpoint: the `openai` SDK as caller, the Cloudflare fake, exact charges. */
let h: RelayHarness;
let cf: FakeCloudflare;
const CHAT = '@cf/meta/llama-3.1-8b-instruct';
const EMBED = '@cf/baai/bge-base-en-v1.5';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

beforeAll(async () => {
  h = await startRelayHarness();
  cf = await startFakeCloudflare({ apiTokens: ['cf-token_1'] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [CHAT]: 2, [EMBED]: 0.5, '@cf/qwen/qwen1.5-14b-chat-awq': 1, '@cf/meta/llama-3.2-3b-instruct': 1 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [CHAT]: 3 }));
  await addChannel(h.root, { type: 39, key: 'cf-token_1', other: FAKE_CLOUDFLARE_ACCOUNT, base_url: cf.url, models: `${CHAT},${EMBED}` });
});
afterAll(async () => {
  await cf.close();
  await h.close();
});

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);
const last = () => cf.requests.at(-1)!;

describe('Cloudflare Workers AI channel', () => {
  it('chat: account path, Bearer token, body passed through; upstream usage charged exactly', async () => {
    const c = await addCaller(h);
    let res: OpenAI.ChatCompletion | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: CHAT, messages, temperature: 0.2 });
    });
    expect(last().path).toBe(`/client/v4/accounts/${FAKE_CLOUDFLARE_ACCOUNT}/ai/v1/chat/completions`);
    expect(last().headers.authorization).toBe('Bearer cf-token_1');
    expect(last().body).toEqual({ model: CHAT, messages, temperature: 0.2 });
    const prompt = expectedChatUsage({ messages }).prompt_tokens;
    expect(res!.choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    expect(res!.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion: 5 }));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: CHAT, prompt_tokens: prompt, completion_tokens: 5, quota: cost });
  });

  it('stream: OpenAI SSE relayed, stream_options not sent, usage counted and charged exactly', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | null | undefined;
    const cost = await spent(c, async () => {
      const stream = await c.client.chat.completions.create({ model: CHAT, messages, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(text).toBe('Hello from the fake OpenAI');
    expect(last().body).toEqual({ model: CHAT, messages, stream: true });
    const log = (await consumeLogs(h, c.userId))[0]!;
    expect(usage).toMatchObject({ prompt_tokens: Number(log.prompt_tokens), completion_tokens: Number(log.completion_tokens) });
    expect(Number(log.completion_tokens)).toBeGreaterThan(0);
    expect(cost).toBe(expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt: Number(log.prompt_tokens), completion: Number(log.completion_tokens) }));
    expect(Number(log.quota)).toBe(cost);
  });

  it('embeddings: /ai/v1/embeddings, input tokens charged', async () => {
    const c = await addCaller(h);
    let tokens = 0;
    const cost = await spent(c, async () => {
      const res = await c.client.embeddings.create({ model: EMBED, input: ['alpha beta gamma'] });
      tokens = res.usage.prompt_tokens;
      expect(res.data).toHaveLength(1);
    });
    expect(last().path).toBe(`/client/v4/accounts/${FAKE_CLOUDFLARE_ACCOUNT}/ai/v1/embeddings`);
    expect(tokens).toBeGreaterThan(0);
    expect(cost).toBe(expectedCharge({ modelRatio: 0.5 }, { prompt: tokens }));
  });

  it('accountId|token keys work; a token Cloudflare refuses answers its message and charges nothing', async () => {
    await addChannel(h.root, { type: 39, key: `${FAKE_CLOUDFLARE_ACCOUNT}|cf-token_1`, base_url: cf.url, models: '@cf/qwen/qwen1.5-14b-chat-awq' });
    const c = await addCaller(h);
    const ok = await c.client.chat.completions.create({ model: '@cf/qwen/qwen1.5-14b-chat-awq', messages });
    expect(ok.choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    expect(last().headers.authorization).toBe('Bearer cf-token_1');
    await addChannel(h.root, { type: 39, key: 'revoked', other: FAKE_CLOUDFLARE_ACCOUNT, base_url: cf.url, models: '@cf/meta/llama-3.2-3b-instruct' });
    const c2 = await addCaller(h);
    const before = await balances(h, c2);
    const err = (await c2.client.chat.completions.create({ model: '@cf/meta/llama-3.2-3b-instruct', messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(last().rejected).toEqual({ status: 401, code: 10000, message: 'Authentication error' });
    expect(err.status).toBe(401);
    // In the caller's language: English for an SDK that names none, Chinese when asked.
    expect(err.message).toContain("the upstream rejected the channel's credentials (status 401)");
    const zh = await c2.client.chat.completions.create({ model: '@cf/meta/llama-3.2-3b-instruct', messages }, { headers: { 'accept-language': 'zh-CN,zh;q=0.9' } }).catch((e: unknown) => e);
    expect((zh as { message: string }).message).toContain('上游拒绝了该渠道的密钥（状态码 401）');
    expect(await balances(h, c2)).toEqual(before);
  });

  it('the channel test button reaches the account endpoint; balance answers "not supported by this provider"', async () => {
    const id = await addChannel(h.root, { type: 39, key: 'cf-token_1', other: FAKE_CLOUDFLARE_ACCOUNT, base_url: cf.url, models: CHAT, test_model: CHAT });
    const r = await h.root.get(`/api/channel/test/${id}`);
    expect(r.body.success).toBe(true);
    expect(last().path).toBe(`/client/v4/accounts/${FAKE_CLOUDFLARE_ACCOUNT}/ai/v1/chat/completions`);
    expect((await h.root.get(`/api/channel/update_balance/${id}`)).body).toMatchObject({ success: false, message: expect.stringMatching(/not supported by this provider/) });
  });

  it('refuses a key in the wrong format on save, showing the expected format', async () => {
    const res = await h.root.post('/api/channel/', { type: 39, name: 'cf-bad', key: 'not-an-account|tok', models: CHAT, group: 'default' });
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('AccountId|Token');
  });
});
