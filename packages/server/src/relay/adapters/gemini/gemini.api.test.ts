import { FAKE_GEMINI_ARGS, FAKE_GEMINI_THOUGHT, IMAGE_TOKENS, startFakeGemini, type FakeGemini } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SAFETY_SETTINGS } from './formats/openai-gemini/request.js';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../../../test-support/relay-fixtures.js';

/**
 * OpenAI chat callers (the official `openai` SDK) served by a Gemini channel: the request is
 * converted to generateContent, the reply and the SSE stream back to chat completions, and
 * Gemini's usage (cached prompt tokens at the cache ratio, thoughts as completion) is charged.
 */
let h: RelayHarness;
let gemini: FakeGemini;
let channelId = 0;
const MODEL = 'gemini-2.0-flash';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } }, additionalProperties: false } } }];

beforeAll(async () => {
  h = await startRelayHarness();
  // Of each prompt, one token is served from Gemini's context cache.
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'], cachedTokens: 1 });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [MODEL]: 2, 'text-embedding-004': 0.05 }));
  channelId = await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: `${MODEL},text-embedding-004` });
});
afterAll(async () => {
  await gemini.close();
  await h.close();
});

/** gemini-2.0-flash here: model ratio 2, completion ratio 4, cache reads 0.25. */
const charge = (prompt: number, cached: number, completion: number) => expectedCharge({ modelRatio: 2, completionRatio: 4, cacheRatio: 0.25 }, { prompt, cached, completion });
const last = () => gemini.requests.at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;

describe('OpenAI chat → Gemini channel', () => {
  it('converts a chat request, answers a chat completion and charges the Gemini usage exactly', async () => {
    const c = await addCaller(h, { quota: 1_000_000, remain: 500_000 });
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: 'Be brief' }, ...messages], temperature: 0.5, top_p: 0.9, stop: 'END', max_tokens: 100, seed: 7 });
    expect(res.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello from the fake Gemini' }, finish_reason: 'stop' });
    expect(last().path).toBe(`/v1beta/models/${MODEL}:generateContent`);
    expect(last().headers['x-goog-api-key']).toBe('AIza-upstream');
    expect(last().query).toEqual({});
    expect(lastBody()).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hello there friend' }] }],
      systemInstruction: { parts: [{ text: 'Be brief' }] },
      generationConfig: { maxOutputTokens: 100, temperature: 0.5, topP: 0.9, stopSequences: ['END'], seed: 7 },
      safetySettings: DEFAULT_SAFETY_SETTINGS,
    });
    // 5 prompt words, 1 of them from the cache.
    expect(res.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10, prompt_tokens_details: { cached_tokens: 1 } });
    const expected = charge(5, 1, 5);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    expect(before.remain - after.remain).toBe(expected);
    const [log] = await consumeLogs(h, c.userId);
    expect(log).toMatchObject({ model_name: MODEL, prompt_tokens: 5, completion_tokens: 5, quota: expected, is_stream: 0, channel_id: channelId });
    expect(JSON.parse(log!.other)).toMatchObject({ cache_tokens: 1, cache_ratio: 0.25, model_ratio: 2, completion_ratio: 4 });
  });

  it('streams: SSE chunks become chat chunks, thoughts as reasoning_content and billed as completion, usage chunk after the bill', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const stream = await c.client.chat.completions.create({ model: MODEL, messages, stream: true, stream_options: { include_usage: true }, reasoning_effort: 'low' });
    let text = '';
    let reasoning = '';
    let finish: string | null = null;
    let usage: Record<string, unknown> | undefined;
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      text += d?.content ?? '';
      reasoning += d?.reasoning_content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage as unknown as Record<string, unknown>;
    }
    expect(last().path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent`);
    expect(last().query).toEqual({ alt: 'sse' });
    expect(lastBody().generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
    expect(text).toBe('Hello from the fake Gemini');
    expect(reasoning).toBe(FAKE_GEMINI_THOUGHT);
    expect(finish).toBe('stop');
    // 3 prompt words (1 cached); 5 reply words + 3 thought tokens.
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 8, prompt_tokens_details: { cached_tokens: 1 }, completion_tokens_details: { reasoning_tokens: 3 } });
    expect(before.quota - (await balances(h, c)).quota).toBe(charge(3, 1, 8));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ is_stream: 1, prompt_tokens: 3, completion_tokens: 8 });
  });

  it('round-trips a tool call: functionCall → tool_calls, the tool result back as a functionResponse', async () => {
    const c = await addCaller(h);
    const ask = [{ role: 'user' as const, content: 'what is the weather in Paris?' }];
    const first = await c.client.chat.completions.create({ model: MODEL, messages: ask, tools, tool_choice: 'auto' });
    // additionalProperties is JSON Schema, not Gemini's Schema: left out (the fake refuses it).
    expect(lastBody()).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } } } }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as { id: string; type: 'function'; function: { name: string; arguments: string } };
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual(FAKE_GEMINI_ARGS);

    const second = await c.client.chat.completions.create({
      model: MODEL,
      tools,
      messages: [...ask, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' }],
    });
    expect(second.choices[0]!.message.content).toBe('Hello from the fake Gemini');
    // The fake refuses a function response that does not follow its call.
    expect((lastBody().contents as unknown[]).slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: FAKE_GEMINI_ARGS } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: 'sunny, 21 C' } } }] },
    ]);
  });

  it('streams a tool call as one tool-call delta and forces one with a named tool_choice', async () => {
    const c = await addCaller(h);
    const stream = await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, stream: true });
    const calls: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      calls.push(...((chunk.choices[0]?.delta.tool_calls ?? []) as typeof calls));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(lastBody().toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), function: { name: 'get_weather' } });
    expect(JSON.parse(calls[0]!.function!.arguments!)).toEqual(FAKE_GEMINI_ARGS);
    expect(finish).toBe('tool_calls');
  });

  it('sends a data-URL image inline and refuses an http image URL at a private address (relay.gemini-image-url.test.ts inlines allowed ones), charging nothing', async () => {
    const c = await addCaller(h);
    const res = await c.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }],
    });
    expect((lastBody().contents as Array<{ parts: unknown[] }>)[0]!.parts).toEqual([{ text: 'what is this?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }]);
    expect(res.usage!.prompt_tokens).toBe(3 + IMAGE_TOKENS);
    const before = await balances(h, c);
    const err = await c.client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://10.0.0.1/cat.jpg' } }] }] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: 'invalid_image_url', param: 'messages.0.content.0' });
    expect((err as Error).message).toMatch(/10\.0\.0\.1, an address outbound requests may not reach/);
    expect(await balances(h, c)).toEqual(before);
  });

  it('refuses what Gemini cannot express with a 400 naming the field', async () => {
    const c = await addCaller(h);
    for (const [extra, param] of [
      [{ logprobs: true }, 'logprobs'],
      [{ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools.0'],
      [{ modalities: ['audio'] }, 'modalities'],
    ] as const) {
      const err = await c.client.chat.completions.create({ model: MODEL, messages, ...extra } as never).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, param, code: 'unsupported_parameter' });
    }
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('leaves out parallel_tool_calls: false (a hint Gemini cannot take) and says so in a header and the log', async () => {
    const c = await addCaller(h);
    const { response } = await c.client.chat.completions.create({ model: MODEL, messages, parallel_tool_calls: false, tools } as never).withResponse();
    expect(response.headers.get('x-modelgate-dropped')).toBe('parallel_tool_calls');
    expect(lastBody()).not.toHaveProperty('parallel_tool_calls');
    const [row] = await consumeLogs(h, c.userId);
    expect(JSON.parse(String(row!.other)).dropped).toEqual(['parallel_tool_calls']);
  });

  it('answers Gemini errors as OpenAI errors; 429 RESOURCE_EXHAUSTED and 503 UNAVAILABLE are retried on another channel', async () => {
    const c = await addCaller(h);
    await h.server.ctx.options.set('RetryTimes', '0');
    gemini.setFault({ status: 503, times: 1 });
    const err = await c.client.chat.completions.create({ model: MODEL, messages }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, type: 'UNAVAILABLE' });
    expect((err as Error).message).toContain('The model is overloaded');

    await h.server.ctx.options.set('RetryTimes', '1');
    const spare = await startFakeGemini({ apiKeys: ['AIza-spare'] });
    const spareId = await addChannel(h.root, { type: 24, name: 'gemini-spare', key: 'AIza-spare', base_url: spare.url, models: MODEL, priority: -1 });
    try {
      gemini.setFault({ status: 429, times: 1 });
      const res = await c.client.chat.completions.create({ model: MODEL, messages });
      expect(res.choices[0]!.message.content).toBe('Hello from the fake Gemini');
      expect(Number((await consumeLogs(h, c.userId)).at(-1)!.channel_id)).toBe(spareId);
      expect(spare.requests).toHaveLength(1);
    } finally {
      await h.root.del(`/api/channel/${spareId}`);
      await h.server.ctx.options.set('RetryTimes', '0');
      gemini.setFault(null);
      await spare.close();
    }
  });

  it('a mid-stream error chunk ends the stream with an OpenAI error frame; only the delivered part is charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    gemini.setFault({ errorAfterEvents: 2, times: 1 });
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages, stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":" from"');
    expect(text).not.toContain('[DONE]');
    const lastFrame = JSON.parse(text.trim().split('\n\n').at(-1)!.slice('data: '.length)) as { error: { type: string; message: string } };
    expect(lastFrame.error).toMatchObject({ type: 'UNAVAILABLE', message: expect.stringContaining('overloaded') });
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    const delivered = countTokens('Hello from');
    // The prompt (3 words, 1 cached) from the running usage; the completion counted over what was delivered.
    const [log] = await consumeLogs(h, c.userId);
    expect(log).toMatchObject({ prompt_tokens: 3, completion_tokens: delivered });
    expect(before.quota - (await balances(h, c)).quota).toBe(charge(3, 0, delivered));
  });

  it('embeds a list of inputs with one batchEmbedContents call, usage counted locally', async () => {
    const c = await addCaller(h);
    const res = await c.client.embeddings.create({ model: 'text-embedding-004', input: ['alpha beta', 'gamma'] });
    expect(last().path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
    expect(lastBody()).toEqual({ requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'alpha beta' }] } }, { model: 'models/text-embedding-004', content: { parts: [{ text: 'gamma' }] } }] });
    expect(res.data.map((d) => d.embedding.length)).toEqual([8, 8]);
    expect(res.data[0]!.embedding[0]).toBeCloseTo(0.2);
    expect(res.usage.prompt_tokens).toBeGreaterThan(0);
    const [log] = await consumeLogs(h, c.userId);
    expect(log!.prompt_tokens).toBe(res.usage.prompt_tokens);
  });

  it('lists the channel’s models through Gemini’s models endpoint', async () => {
    const saved = await h.root.get(`/api/channel/fetch_models/${channelId}`);
    expect(saved.body).toMatchObject({ success: true, data: ['gemini-2.0-flash', 'gemini-2.5-flash', 'gemini-2.5-pro', 'text-embedding-004'] });
    expect(gemini.requests.at(-1)).toMatchObject({ path: '/v1beta/models', query: { pageSize: '1000' } });
    const fresh = await h.root.post('/api/channel/fetch_models', { base_url: gemini.url, key: 'AIza-upstream', type: 24 });
    expect(fresh.body.data).toHaveLength(4);
    const wrong = await h.root.post('/api/channel/fetch_models', { base_url: gemini.url, key: 'AIza-wrong', type: 24 });
    expect(wrong.body).toMatchObject({ success: false, message: expect.stringMatching(/HTTP 400/) });
  });
});
