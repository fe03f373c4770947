import { Type, type Content, type FunctionDeclaration } from '@google/genai';
import { FAKE_GEMINI_ARGS, FAKE_TOOL_INPUT, startFakeAnthropic, startFakeGemini, type FakeAnthropic, type FakeGemini } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, genaiClient, startRelayHarness, type RelayHarness } from '../../../test-support/relay-fixtures.js';

/**
 * The native Gemini ingress `POST /v1beta/models/{model}:…` with the official `@google/genai` SDK
 * as the caller: passed through to a Gemini channel, converted for OpenAI- and Anthropic-format
 * channels; billed and logged like every relay call; errors in Google's shape.
 */
let h: RelayHarness;
let gemini: FakeGemini;
let claude: FakeAnthropic;
const GEMINI = 'gemini-2.0-flash';
const GPT = 'gpt-4';
const CLAUDE = 'claude-3-5-sonnet-20241022';
const contents: Content[] = [{ role: 'user', parts: [{ text: 'Hello there friend' }] }];
const weather: FunctionDeclaration = { name: 'get_weather', description: 'Weather of a city', parameters: { type: Type.OBJECT, properties: { location: { type: Type.STRING } } } };

beforeAll(async () => {
  h = await startRelayHarness();
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'] });
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [GEMINI]: 2, [GPT]: 15, [CLAUDE]: 1.5 }));
  await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: GEMINI });
  await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: GPT });
  await addChannel(h.root, { type: 14, name: 'claude', key: 'sk-ant-upstream', base_url: claude.url, models: CLAUDE });
});
afterAll(async () => {
  await gemini.close();
  await claude.close();
  await h.close();
});

const lastGemini = () => gemini.requests.at(-1)!;
const lastOpenAI = () => h.fake.requests.at(-1)!.body as Record<string, unknown>;
const lastClaude = () => claude.requests.at(-1)!.body as Record<string, unknown>;

describe('Gemini ingress → Gemini channel (passthrough)', () => {
  it('passes the body through under the mapped URL and charges usageMetadata', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await genaiClient(h, c).models.generateContent({ model: GEMINI, contents, config: { systemInstruction: 'Be brief', maxOutputTokens: 64, temperature: 0.2 } });
    expect(res.text).toBe('Hello from the fake Gemini');
    expect(res.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 });
    const sent = lastGemini();
    expect(sent.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
    expect(sent.headers['x-goog-api-key']).toBe('AIza-upstream');
    expect(sent.body).toMatchObject({ contents, systemInstruction: { parts: [{ text: 'Be brief' }] }, generationConfig: { maxOutputTokens: 64, temperature: 0.2 } });
    // gemini-2.0-flash here: ratio 2, completion ratio 4.
    const expected = expectedCharge({ modelRatio: 2, completionRatio: 4 }, { prompt: 5, completion: 5 });
    expect(before.quota - (await balances(h, c)).quota).toBe(expected);
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: GEMINI, prompt_tokens: 5, completion_tokens: 5, quota: expected, is_stream: 0 });
  });

  it('streams SSE chunks as they came (alt=sse), and a JSON array without alt=sse', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: Record<string, unknown> | undefined;
    for await (const chunk of await genaiClient(h, c).models.generateContentStream({ model: GEMINI, contents })) {
      text += chunk.text ?? '';
      if (chunk.usageMetadata) usage = chunk.usageMetadata as Record<string, unknown>;
    }
    expect(text).toBe('Hello from the fake Gemini');
    expect(usage).toMatchObject({ promptTokenCount: 3, candidatesTokenCount: 5 });
    expect(lastGemini().query).toEqual({ alt: 'sse' });
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ is_stream: 1, prompt_tokens: 3, completion_tokens: 5 });

    const res = await fetch(`${h.server.url}/v1beta/models/${GEMINI}:streamGenerateContent?key=sk-${c.key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contents }) });
    expect(res.headers.get('content-type')).toContain('application/json');
    const list = (await res.json()) as Array<{ candidates: Array<{ content: { parts: Array<{ text: string }> } }> }>;
    expect(list.map((ch) => ch.candidates[0]!.content.parts[0]!.text).join('')).toBe('Hello from the fake Gemini');
    expect(await consumeLogs(h, c.userId)).toHaveLength(2);
  });

  it('counts tokens locally and lists the models the token may call', async () => {
    const c = await addCaller(h);
    const sdk = genaiClient(h, c);
    const counted = await sdk.models.countTokens({ model: GEMINI, contents });
    expect(counted.totalTokens).toBeGreaterThan(0);
    const names: string[] = [];
    for await (const m of await sdk.models.list()) names.push(String(m.name));
    expect(names).toEqual(expect.arrayContaining([`models/${GEMINI}`, `models/${GPT}`, `models/${CLAUDE}`]));
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('answers errors in Google’s shape: a bad token, an invalid body naming the field, an upstream 429', async () => {
    const c = await addCaller(h);
    const bad = await fetch(`${h.server.url}/v1beta/models/${GEMINI}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'sk-nope', 'content-type': 'application/json' }, body: JSON.stringify({ contents }) });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    const invalid = await fetch(`${h.server.url}/v1beta/models/${GEMINI}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': `sk-${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [] }] }) });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('contents[0].parts') } });
    gemini.setFault({ status: 429, times: 1 });
    const err = await genaiClient(h, c).models.generateContent({ model: GEMINI, contents }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429 });
    expect((err as Error).message).toContain('RESOURCE_EXHAUSTED');
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });
});

describe('Gemini ingress → OpenAI and Anthropic channels (converted)', () => {
  it('converts for an OpenAI channel: system, generation config, usage back as usageMetadata', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await genaiClient(h, c).models.generateContent({ model: GPT, contents, config: { systemInstruction: 'Be brief', maxOutputTokens: 64, stopSequences: ['END'] } });
    expect(res.text).toBe('Hello from the fake OpenAI');
    expect(res.candidates![0]!.finishReason).toBe('STOP');
    expect(res.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 });
    expect(lastOpenAI()).toEqual({ model: GPT, messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hello there friend' }], max_tokens: 64, stop: ['END'] });
    const expected = expectedCharge({ model: GPT }, { prompt: 5, completion: 5 });
    expect(before.quota - (await balances(h, c)).quota).toBe(expected);
  });

  it('streams from an OpenAI channel: text chunks, then finishReason with the billed usage', async () => {
    const c = await addCaller(h);
    const chunks = [];
    for await (const chunk of await genaiClient(h, c).models.generateContentStream({ model: GPT, contents })) chunks.push(chunk);
    expect(chunks.map((ch) => ch.text ?? '').join('')).toBe('Hello from the fake OpenAI');
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 3, candidatesTokenCount: 5 });
    expect(lastOpenAI()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('round-trips a function call through an OpenAI channel', async () => {
    const c = await addCaller(h);
    const sdk = genaiClient(h, c);
    const ask: Content[] = [{ role: 'user', parts: [{ text: 'what is the weather in Paris?' }] }];
    const first = await sdk.models.generateContent({ model: GPT, contents: ask, config: { tools: [{ functionDeclarations: [weather] }] } });
    expect(lastOpenAI().tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }]);
    const call = first.functionCalls![0]!;
    expect(call).toMatchObject({ name: 'get_weather', args: FAKE_TOOL_INPUT });
    const second = await sdk.models.generateContent({
      model: GPT,
      contents: [...ask, { role: 'model', parts: [{ functionCall: call }] }, { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name!, response: { forecast: 'sunny' } } }] }],
      config: { tools: [{ functionDeclarations: [weather] }] },
    });
    expect(second.text).toBe('Hello from the fake OpenAI');
    const msgs = lastOpenAI().messages as Array<Record<string, unknown>>;
    expect(msgs.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(FAKE_TOOL_INPUT) } }] },
      { role: 'tool', tool_call_id: call.id, content: '{"forecast":"sunny"}' },
    ]);
  });

  it('converts for an Anthropic channel through chat: text, image, stream and the Anthropic usage', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await genaiClient(h, c).models.generateContent({
      model: CLAUDE,
      contents: [{ role: 'user', parts: [{ text: 'what is this?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
    });
    expect(res.text).toBe('Hello from the fake Claude');
    expect(lastClaude()).toMatchObject({
      model: CLAUDE,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
    });
    // 3 prompt words (the fake counts no image tokens); claude-3-5-sonnet: ratio 1.5, completion 5.
    expect(before.quota - (await balances(h, c)).quota).toBe(expectedCharge({ model: CLAUDE }, { prompt: 3, completion: 5 }));
    let text = '';
    let last;
    for await (const chunk of await genaiClient(h, c).models.generateContentStream({ model: CLAUDE, contents, config: { tools: [{ functionDeclarations: [weather] }], toolConfig: { functionCallingConfig: { mode: 'ANY' as never } } } })) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expect(text).toBe('');
    expect(last!.functionCalls![0]).toMatchObject({ name: 'get_weather', args: FAKE_TOOL_INPUT });
    expect(lastClaude()).toMatchObject({ stream: true, tool_choice: { type: 'any' } });
  });

  it('refuses what an OpenAI-format channel cannot express with a Google 400 naming the field', async () => {
    const c = await addCaller(h);
    const err = await genaiClient(h, c)
      .models.generateContent({ model: GPT, contents, config: { tools: [{ googleSearch: {} }] } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400 });
    expect((err as Error).message).toContain('tools[0].googleSearch');
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });
});

describe('Gemini ingress: broken upstream stream', () => {
  it('ends with a Google error chunk and charges only the delivered part', async () => {
    const c = await addCaller(h);
    gemini.setFault({ errorAfterEvents: 2, times: 1 });
    const res = await fetch(`${h.server.url}/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`, { method: 'POST', headers: { 'x-goog-api-key': `sk-${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ contents }) });
    const frames = (await res.text()).split('\r\n\r\n').filter(Boolean);
    expect(frames).toHaveLength(3);
    expect(JSON.parse(frames[2]!.slice('data: '.length))).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ prompt_tokens: 3, completion_tokens: countTokens('Hello from') });
    expect(FAKE_GEMINI_ARGS).toEqual(FAKE_TOOL_INPUT);
  });
});
