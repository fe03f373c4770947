import { FAKE_ZHIPU_KEY, FAKE_ZHIPU_TOOL_ARGS, startFakeZhipu, zhipuPromptTokens, type FakeZhipu } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * Zhipu v4 / GLM-4 (26) and v3 / ChatGLM (16): the official SDK as caller, the Zhipu fake verifying
 * the HS256 JWT (vendor header fields, ms expiry) and the documented bodies; exact charges.
 */
let h: RelayHarness;
let zhipu: FakeZhipu;
let v4Id = 0;
let v3Id = 0;
let badId = 0;
const GLM = 'glm-4';
const GLM_V = 'glm-4v';
const EMBED = 'embedding-3';
const V3 = 'chatglm_pro';
const BAD = 'glm-4-air';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const TEXT = 'Hello from the fake Zhipu';

beforeAll(async () => {
  h = await startRelayHarness();
  zhipu = await startFakeZhipu();
  const o = h.server.ctx.options;
  await o.set('ModelRatio', JSON.stringify({ [GLM]: 2, [GLM_V]: 1, [EMBED]: 0.5, [V3]: 3, [BAD]: 1 }));
  await o.set('CompletionRatio', JSON.stringify({ [GLM]: 4, [GLM_V]: 2, [V3]: 1 }));
  v4Id = await addChannel(h.root, { type: 26, key: FAKE_ZHIPU_KEY, base_url: zhipu.url, models: `${GLM},${GLM_V},${EMBED}` });
  v3Id = await addChannel(h.root, { type: 16, key: FAKE_ZHIPU_KEY, base_url: zhipu.url, models: V3 });
  // Well-formed, but the secret is not the account's: the vendor refuses the signature.
  badId = await addChannel(h.root, { type: 26, key: 'fakezhipuid.wrongsecret', base_url: zhipu.url, models: BAD });
});
afterAll(async () => {
  await zhipu.close();
  await h.close();
});

const last = () => zhipu.requests.at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;
const charge = (prompt: number, completion: number, modelRatio: number, completionRatio: number) => expectedCharge({ modelRatio, completionRatio }, { prompt, completion });

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

describe('Zhipu v4 (GLM-4)', () => {
  it('chat: JWT with the vendor header, body reduced to the documented fields, exact charge', async () => {
    const c = await addCaller(h);
    let res: Awaited<ReturnType<typeof c.client.chat.completions.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: GLM, messages, temperature: 0.5, top_p: 1, stop: 'END', user: 'user-42', metadata: { a: 'b' }, n: 1 } as never);
    });
    const r = last();
    expect(r.path).toBe('/api/paas/v4/chat/completions');
    expect(r.headers.authorization).not.toMatch(/^Bearer /);
    expect(r.jwt!.header).toEqual({ alg: 'HS256', sign_type: 'SIGN', typ: 'JWT' });
    expect(r.jwt!.payload.api_key).toBe('fakezhipuid');
    // Milliseconds, as Zhipu documents.
    expect(Number(r.jwt!.payload.exp)).toBeGreaterThan(Date.now() + 30 * 60 * 1000);
    expect(lastBody()).toEqual({ model: GLM, messages, temperature: 0.5, top_p: 0.99, stop: ['END'], user_id: 'user-42' });
    const prompt = zhipuPromptTokens(lastBody());
    expect((res as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(TEXT);
    expect(cost).toBe(charge(prompt, 5, 2, 4));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: GLM, channel_id: v4Id, prompt_tokens: prompt, completion_tokens: 5, quota: charge(prompt, 5, 2, 4) });
    // The signed token is reused until near its expiry.
    await c.client.chat.completions.create({ model: GLM, messages });
    expect(last().headers.authorization).toBe(r.headers.authorization);
  });

  it('stream: chunks relayed, usage of the final chunk billed, stream_options not sent', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    const cost = await spent(c, async () => {
      const stream = await c.client.chat.completions.create({ model: GLM, messages, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(text).toBe(TEXT);
    expect(lastBody()).toEqual({ model: GLM, messages, stream: true });
    const prompt = zhipuPromptTokens(lastBody());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5, 2, 4));
  });

  it('GLM-4V: inline images lose their data: prefix; tools pass through and tool calls come back', async () => {
    const c = await addCaller(h);
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const vision = await c.client.chat.completions.create({
      model: GLM_V,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }],
    });
    expect(vision.choices[0]!.message.content).toBe(TEXT);
    expect(lastBody().messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: png } }] }]);
    const prompt = zhipuPromptTokens(lastBody());
    expect(vision.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
    const called = await c.client.chat.completions.create({ model: GLM, messages: [{ role: 'user', content: 'weather in Beijing?' }], tools, tool_choice: 'auto' });
    expect(lastBody()).toMatchObject({ tools, tool_choice: 'auto' });
    expect(called.choices[0]!.finish_reason).toBe('tool_calls');
    const call = called.choices[0]!.message.tool_calls![0] as { function: { name: string; arguments: string } };
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual(FAKE_ZHIPU_TOOL_ARGS);
  });

  it('embeddings: exact charge', async () => {
    const c = await addCaller(h);
    let data: unknown[] = [];
    const cost = await spent(c, async () => {
      data = (await c.client.embeddings.create({ model: EMBED, input: ['alpha beta', 'gamma'] })).data;
    });
    expect(last().path).toBe('/api/paas/v4/embeddings');
    // The SDK's `encoding_format` is not a Zhipu field: it is left out.
    expect(lastBody()).toEqual({ model: EMBED, input: ['alpha beta', 'gamma'] });
    expect(data).toHaveLength(2);
    expect(cost).toBe(charge(3, 0, 0.5, 1));
  });
});

describe('Zhipu v3 (ChatGLM)', () => {
  it.each([false, true])('chat (stream %s): prompt request, invoke / sse-invoke, exact charge', async (stream) => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    const cost = await spent(c, async () => {
      if (!stream) {
        const res = await c.client.chat.completions.create({ model: V3, messages: [{ role: 'system', content: 'Be brief' }, ...messages], temperature: 0.2, max_tokens: 40 });
        text = res.choices[0]!.message.content ?? '';
        usage = res.usage;
        expect(res.choices[0]!.finish_reason).toBe('stop');
        return;
      }
      for await (const chunk of await c.client.chat.completions.create({ model: V3, messages: [{ role: 'system', content: 'Be brief' }, ...messages], temperature: 0.2, stream: true, stream_options: { include_usage: true } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(last().path).toBe(`/api/paas/v3/model-api/${V3}/${stream ? 'sse-invoke' : 'invoke'}`);
    expect(last().jwt!.header).toMatchObject({ sign_type: 'SIGN' });
    expect(lastBody()).toEqual({ prompt: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hello there friend' }], temperature: 0.2, ...(stream ? { incremental: true } : {}) });
    expect(text).toBe(TEXT);
    const prompt = zhipuPromptTokens(lastBody());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5, 3, 1));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ channel_id: v3Id, prompt_tokens: prompt, completion_tokens: 5 });
  });

  it('serves an Anthropic Messages caller through the v3 conversion', async () => {
    const c = await addCaller(h);
    const msg = await anthropicClient(h, c).messages.create({ model: V3, max_tokens: 40, messages });
    expect(msg).toMatchObject({ content: [{ type: 'text', text: TEXT }], usage: { output_tokens: 5 } });
  });

  it('an error event in the stream ends the caller stream with an error, never as content', async () => {
    const c = await addCaller(h);
    zhipu.setFault({ inStream: true, message: '系统检测到输入或生成内容可能包含不安全或敏感内容', times: 1 });
    let text = '';
    const err = await (async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: V3, messages, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e);
    zhipu.setFault(null);
    expect(text).toBe('Hello');
    expect(String((err as Error).message)).toContain('系统检测到输入或生成内容可能包含不安全或敏感内容');
  });

  it('a 200 with success:false is an error with Zhipu\'s message, and nothing is charged', async () => {
    const c = await addCaller(h);
    zhipu.setFault({ code: '1113', message: '您的账户已欠费，请充值后重试。', times: 1 });
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: V3, messages }).catch((e: unknown) => e)) as { status: number; message: string };
    zhipu.setFault(null);
    expect(err.message).toContain('您的账户已欠费，请充值后重试。');
    expect(await balances(h, c)).toEqual(before);
  });
});

describe('Zhipu keys and the console', () => {
  it('refuses a key that is not id.secret on save, naming the expected format', async () => {
    for (const type of [16, 26]) {
      const res = await h.root.post('/api/channel/', { type, name: `bad-zhipu-${type}`, key: 'sk-not-a-zhipu-key', models: GLM, group: 'default' });
      expect(res.body.success).toBe(false);
      expect(res.body.message).toContain('id.secret');
    }
  });

  it('a key the vendor refuses is a channel error with its message; nothing is charged; the channel is disabled', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: BAD, messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(last().rejected).toMatchObject({ status: 401, code: '1002' });
    expect(err.status).toBe(401);
    // The caller is not told about the channel's credentials; the operator's record keeps Zhipu's message.
    expect(err.message).toContain("the upstream rejected the channel's credentials");
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', badId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('Authorization Token非法');
  });

  it('the channel test button signs and calls both versions', async () => {
    for (const id of [v4Id, v3Id]) {
      const tested = await h.root.get(`/api/channel/test/${id}`);
      expect(tested.body).toMatchObject({ success: true, message: '' });
    }
  });
});
