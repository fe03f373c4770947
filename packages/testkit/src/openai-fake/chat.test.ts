import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './server.js';
import { parseSseData } from './sse-client.js';
import { FAKE_TOOL_ARGUMENTS } from './tools.js';
import type { FakeOpenAI } from './types.js';
import { expectedChatUsage, expectedCompletionUsage, fakeReplyText } from './usage.js';

const KEY = 'sk-test-chat';
let fake: FakeOpenAI;
let client: OpenAI;

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKeys: [KEY] });
  client = new OpenAI({ apiKey: KEY, baseURL: fake.baseURL, maxRetries: 0, timeout: 10_000 });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => fake.reset());

function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

describe('POST /v1/chat/completions (JSON)', () => {
  it('answers the SDK with a chat.completion echoing the model and deterministic usage', async () => {
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'system' as const, content: 'You are terse.' }, { role: 'user' as const, content: 'Say hello to me' }] };
    const completion = await client.chat.completions.create(request);
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/u);
    expect(completion.model).toBe('gpt-4o-mini');
    expect(completion.created).toBeGreaterThan(1_600_000_000);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', logprobs: null });
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: fakeReplyText(5) });
    expect(completion.usage).toEqual(expectedChatUsage(request));
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });

    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: request });
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('stops at max_tokens with finish_reason length, as the channel test request expects', async () => {
    const request = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 1 };
    const completion = await client.chat.completions.create(request);
    expect(completion.choices[0].message.content).toBe('Hello');
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(completion.usage).toMatchObject({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
  });

  it('answers with tool_calls when tools are given and the user asks about the weather', async () => {
    const request = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'What is the weather in SF?' }], tools: [weatherTool] };
    const completion = await client.chat.completions.create(request);
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    expect(call?.id).toMatch(/^call_/u);
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ location: 'San Francisco, CA', unit: 'celsius' });
    expect(completion.usage).toEqual(expectedChatUsage(request));
  });

  it('rejects missing messages, stream_options without stream and invalid JSON like OpenAI does', async () => {
    const missing = await post('/v1/chat/completions', { model: 'gpt-4o' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: { message: "Missing required parameter: 'messages'.", type: 'invalid_request_error', param: 'messages', code: 'missing_required_parameter' },
    });
    const streamOptions = await post('/v1/chat/completions', { model: 'gpt-4o', messages: [], stream_options: { include_usage: true } });
    expect(streamOptions.status).toBe(400);
    expect(await streamOptions.json()).toMatchObject({ error: { param: 'stream_options', type: 'invalid_request_error' } });
    const broken = await fetch(`${fake.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{"model":',
      signal: AbortSignal.timeout(10_000),
    });
    expect(broken.status).toBe(400);
    const body = (await broken.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/could not parse the JSON body/u);
  });
});

describe('POST /v1/chat/completions (stream)', () => {
  it('streams role, N content deltas, finish and a usage chunk to the SDK with include_usage', async () => {
    const request = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'count to five please' }] };
    const stream = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    // role + 5 content + finish + usage
    expect(chunks).toHaveLength(8);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4o')).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(fakeReplyText(5));
    expect(chunks[6].choices[0].finish_reason).toBe('stop');
    expect(chunks[7].choices).toEqual([]);
    expect(chunks[7].usage).toEqual(expectedChatUsage(request));
    expect(chunks.slice(0, 7).every((c) => c.usage === null)).toBe(true);
  });

  it('sends SSE frames ending in [DONE] and no usage without include_usage', async () => {
    const res = await post('/v1/chat/completions', { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/u);
    const raw = await res.text();
    expect(raw.startsWith('data: {')).toBe(true);
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    const frames = parseSseData(raw);
    expect(frames).toHaveLength(8); // role + 5 + finish + [DONE]
    const payloads = frames.slice(0, -1).map((f) => JSON.parse(f) as Record<string, unknown>);
    expect(payloads.every((p) => !('usage' in p))).toBe(true);
  });

  it('streams tool_calls: id, type and name first, then argument fragments, then finish_reason tool_calls', async () => {
    const request = {
      model: 'gpt-4o',
      messages: [{ role: 'user' as const, content: 'hello' }],
      tools: [weatherTool],
      tool_choice: { type: 'function' as const, function: { name: 'get_weather' } },
    };
    const stream = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const first = chunks[0].choices[0].delta.tool_calls?.[0];
    expect(first).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(first?.id).toMatch(/^call_/u);
    const fragments = chunks.slice(1, -2).map((c) => c.choices[0].delta.tool_calls?.[0].function?.arguments ?? '');
    expect(fragments).toHaveLength(5);
    expect(fragments.join('')).toBe(FAKE_TOOL_ARGUMENTS);
    expect(chunks.at(-2)?.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.usage).toEqual(expectedChatUsage(request));
  });
});

describe('instance options', () => {
  it('honours chunkCount, cachedTokens and reasoningTokens', async () => {
    const custom = await startFakeOpenAI({ chunkCount: 12, cachedTokens: 2, reasoningTokens: 3 });
    try {
      const sdk = new OpenAI({ apiKey: 'any', baseURL: custom.baseURL, maxRetries: 0, timeout: 10_000 });
      const request = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'one two three four' }] };
      const completion = await sdk.chat.completions.create(request);
      expect(completion.choices[0].message.content).toBe(fakeReplyText(12));
      expect(completion.usage).toEqual(expectedChatUsage(request, { chunkCount: 12, cachedTokens: 2, reasoningTokens: 3 }));
      expect(completion.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 15, prompt_tokens_details: { cached_tokens: 2 } });
    } finally {
      await custom.close();
    }
  });
});

describe('POST /v1/completions', () => {
  it('returns a text_completion with deterministic usage', async () => {
    const request = { model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test' };
    const completion = await client.completions.create(request);
    expect(completion.object).toBe('text_completion');
    expect(completion.id).toMatch(/^cmpl-/u);
    expect(completion.model).toBe(request.model);
    expect(completion.choices[0]).toMatchObject({ text: fakeReplyText(5), index: 0, finish_reason: 'stop' });
    expect(completion.usage).toEqual(expectedCompletionUsage(request));
  });

  it('streams text chunks, a finish chunk, a usage chunk with include_usage and [DONE]', async () => {
    const request = { model: 'gpt-3.5-turbo-instruct', prompt: 'a b c', max_tokens: 3 };
    const res = await post('/v1/completions', { ...request, stream: true, stream_options: { include_usage: true } });
    const frames = parseSseData(await res.text());
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f) as { object: string; choices: { text: string; finish_reason: string | null }[]; usage?: unknown });
    expect(chunks).toHaveLength(5); // 3 words + finish + usage
    expect(chunks.every((c) => c.object === 'text_completion')).toBe(true);
    expect(chunks.slice(0, 3).map((c) => c.choices[0].text).join('')).toBe(fakeReplyText(3));
    expect(chunks[3].choices[0].finish_reason).toBe('length');
    expect(chunks[4].choices).toEqual([]);
    expect(chunks[4].usage).toEqual(expectedCompletionUsage(request));
  });
});
