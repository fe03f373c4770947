import { dashscopePromptTokens, FAKE_DASHSCOPE_KEY, startFakeDashScope, type FakeDashScope } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, priceModels, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * Alibaba Qwen / DashScope (17), native APIs: text-generation (JSON and SSE with
 * `X-DashScope-SSE` and `incremental_output`), `enable_search`, text-embedding; the official SDK
 * as caller, the DashScope fake, exact charges.
 */
let h: RelayHarness;
let ds: FakeDashScope;
let chId = 0;
const QWEN = 'qwen-plus';
const SEARCH = 'qwen-plus-internet';
const EMBED = 'text-embedding-v3';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const TEXT = 'Hello from the fake Qwen';

beforeAll(async () => {
  h = await startRelayHarness();
  ds = await startFakeDashScope();
  const o = h.server.ctx.options;
  await o.set('ModelRatio', JSON.stringify({ [QWEN]: 2, [SEARCH]: 2, [EMBED]: 0.5 }));
  await o.set('CompletionRatio', JSON.stringify({ [QWEN]: 3, [SEARCH]: 3 }));
  chId = await addChannel(h.root, { type: 17, key: FAKE_DASHSCOPE_KEY, base_url: ds.url, models: `${QWEN},${SEARCH},${EMBED}` });
});
afterAll(async () => {
  await ds.close();
  await h.close();
});

const last = () => ds.requests.at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;
const charge = (prompt: number, completion: number, modelRatio: number, completionRatio: number) => expectedCharge({ modelRatio, completionRatio }, { prompt, completion });
const GEN = '/api/v1/services/aigc/text-generation/generation';

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

describe('Alibaba Qwen (DashScope native)', () => {
  it('chat: text-generation body with parameters, exact charge', async () => {
    const c = await addCaller(h);
    let res: Awaited<ReturnType<typeof c.client.chat.completions.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: QWEN, messages: [{ role: 'system', content: 'Be brief' }, ...messages], temperature: 0.3, top_p: 1, max_tokens: 50, seed: 7, stop: 'END' });
    });
    expect(last().path).toBe(GEN);
    expect(last().headers.authorization).toBe(`Bearer ${FAKE_DASHSCOPE_KEY}`);
    expect(last().headers['x-dashscope-sse']).toBeUndefined();
    expect(lastBody()).toEqual({
      model: QWEN,
      input: { messages: [{ role: 'system', content: 'Be brief' }, ...messages] },
      parameters: { result_format: 'message', max_tokens: 50, temperature: 0.3, top_p: 0.9999, seed: 7, stop: ['END'] },
    });
    const prompt = dashscopePromptTokens(lastBody());
    const r = res as { choices: Array<{ message: { content: string }; finish_reason: string }>; usage: unknown };
    expect(r.choices[0]).toMatchObject({ message: { content: TEXT }, finish_reason: 'stop' });
    expect(r.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5, 2, 3));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: QWEN, channel_id: chId, prompt_tokens: prompt, completion_tokens: 5, quota: charge(prompt, 5, 2, 3) });
  });

  it('stream: X-DashScope-SSE and incremental_output; "null" finish reasons dropped; final usage billed once', async () => {
    const c = await addCaller(h);
    let text = '';
    const finishes: Array<string | null> = [];
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    const cost = await spent(c, async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: QWEN, messages, stream: true, stream_options: { include_usage: true } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.choices[0]) finishes.push(chunk.choices[0].finish_reason);
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(text).toBe(TEXT);
    expect(finishes).toEqual([null, null, null, null, 'stop']);
    expect(last().headers['x-dashscope-sse']).toBe('enable');
    expect(lastBody()).toEqual({ model: QWEN, input: { messages }, parameters: { result_format: 'message', incremental_output: true } });
    const prompt = dashscopePromptTokens(lastBody());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5, 2, 3));
    const msg = await anthropicClient(h, c).messages.create({ model: QWEN, max_tokens: 40, messages });
    expect(msg).toMatchObject({ content: [{ type: 'text', text: TEXT }], usage: { input_tokens: prompt, output_tokens: 5 } });
  });

  it('enable_search: from a -internet model (suffix removed) or the caller\'s field', async () => {
    const c = await addCaller(h);
    const res = await c.client.chat.completions.create({ model: SEARCH, messages });
    expect(lastBody()).toMatchObject({ model: QWEN, parameters: { enable_search: true } });
    expect(res.choices[0]!.message.content).toBe('Searched the web for you');
    await c.client.chat.completions.create({ model: QWEN, messages, enable_search: true } as never);
    expect(lastBody()).toMatchObject({ model: QWEN, parameters: { enable_search: true } });
  });

  it('embeddings: input.texts, text_index mapped, exact charge', async () => {
    const c = await addCaller(h);
    let data: Array<{ index: number }> = [];
    const cost = await spent(c, async () => {
      data = (await c.client.embeddings.create({ model: EMBED, input: ['alpha beta', 'gamma'], dimensions: 4 })).data;
    });
    expect(last().path).toBe('/api/v1/services/embeddings/text-embedding/text-embedding');
    expect(lastBody()).toEqual({ model: EMBED, input: { texts: ['alpha beta', 'gamma'] }, parameters: { dimension: 4 } });
    expect(data.map((d) => d.index)).toEqual([0, 1]);
    expect(cost).toBe(charge(3, 0, 0.5, 1));
  });

  it('errors: DashScope\'s code and message; an error event ends the stream with an error; nothing charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    ds.setFault({ status: 400, code: 'DataInspectionFailed', message: 'Input data may contain inappropriate content.', times: 1 });
    const err = (await c.client.chat.completions.create({ model: QWEN, messages }).catch((e: unknown) => e)) as { status: number; message: string; code: string };
    expect(err).toMatchObject({ status: 400, code: 'DataInspectionFailed' });
    expect(err.message).toContain('Input data may contain inappropriate content.');
    expect(await balances(h, c)).toEqual(before);
    ds.setFault({ inStream: true, message: 'Output data may contain inappropriate content.', times: 1 });
    let text = '';
    const streamErr = await (async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: QWEN, messages, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e);
    ds.setFault(null);
    expect(text).toBe('Hello');
    expect(String((streamErr as Error).message)).toContain('Output data may contain inappropriate content.');
  });

  it('refuses image parts with a 400 before calling DashScope', async () => {
    const c = await addCaller(h);
    const calls = ds.requests.length;
    const err = (await c.client.chat.completions.create({ model: QWEN, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(400);
    expect(err.message).toContain('only text parts');
    expect(ds.requests).toHaveLength(calls);
  });
});

describe('DashScope keys and the console', () => {
  it('refuses a key that is not a DashScope key on save', async () => {
    const res = await h.root.post('/api/channel/', { type: 17, name: 'bad-qwen', key: 'not a key', models: QWEN, group: 'default' });
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('DashScope API key');
  });

  it('a revoked key is a channel error (InvalidApiKey), the channel is disabled; the test button works on a good one', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    await priceModels(h, ['qwen-turbo']);
    const badId = await addChannel(h.root, { type: 17, key: 'sk-revoked', base_url: ds.url, models: 'qwen-turbo' });
    const refused = await h.root.get(`/api/channel/test/${badId}`);
    expect(refused.body.success).toBe(false);
    expect(last().rejected).toMatchObject({ status: 401, code: 'InvalidApiKey' });
    const c = await addCaller(h);
    const err = (await c.client.chat.completions.create({ model: 'qwen-turbo', messages }).catch((e: unknown) => e)) as { status: number };
    expect(err.status).toBe(401);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', badId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('Invalid API-key provided.');
    const tested = await h.root.get(`/api/channel/test/${chId}`);
    expect(tested.body).toMatchObject({ success: true, message: '' });
  });
});
