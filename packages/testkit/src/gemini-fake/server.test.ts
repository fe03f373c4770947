import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf, type Shape } from '../fixture-shape.js';
import { parseSseData } from '../openai-fake/sse-client.js';
import { providerFixture } from '../provider-fixtures.js';
import { startFakeGemini, type FakeGemini } from './index.js';
import { FAKE_GEMINI_ARGS, FAKE_GEMINI_THOUGHT, IMAGE_TOKENS, expectedGeminiUsage } from './usage.js';

let fake: FakeGemini;
beforeAll(async () => {
  fake = await startFakeGemini({ apiKeys: ['AIza-good'], cachedTokens: 2 });
});
afterAll(() => fake.close());

const headers = { 'x-goog-api-key': 'AIza-good', 'content-type': 'application/json' };
const base = { contents: [{ role: 'user', parts: [{ text: 'one two three four five' }] }] };
const url = (method: string, query = '') => `${fake.url}/v1beta/models/gemini-2.0-flash:${method}${query}`;
const post = (body: unknown, method = 'generateContent', h: Record<string, string> = headers, query = '') => fetch(url(method, query), { method: 'POST', headers: h, body: JSON.stringify(body) });
const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }] }];

describe('fake Gemini: requests are checked as the API documents them', () => {
  it.each([
    ['no key', { 'content-type': 'application/json' }, base, 403, 'PERMISSION_DENIED', 'unregistered callers'],
    ['a wrong key', { ...headers, 'x-goog-api-key': 'nope' }, base, 400, 'INVALID_ARGUMENT', 'API key not valid'],
    ['no contents', headers, {}, 400, 'INVALID_ARGUMENT', 'contents is not specified'],
    ['an OpenAI field', headers, { ...base, messages: [] }, 400, 'INVALID_ARGUMENT', 'Unknown name "messages"'],
    ['an assistant role', headers, { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 400, 'INVALID_ARGUMENT', 'valid role'],
    ['a JSON Schema keyword in parameters', headers, { ...base, tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', additionalProperties: false } }] }] }, 400, 'INVALID_ARGUMENT', 'Unknown name "additionalProperties"'],
    ['a function response without its call', headers, { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, 400, 'INVALID_ARGUMENT', 'immediately after a function call turn'],
    ['a part with two data fields', headers, { contents: [{ role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'AA==' } }] }] }, 400, 'INVALID_ARGUMENT', "oneof field 'data'"],
  ] as const)('refuses %s with Google’s error body', async (_name, h, body, status, googleStatus, message) => {
    const res = await post(body, 'generateContent', h);
    expect(res.status).toBe(status);
    const json = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(json.error).toMatchObject({ code: status, status: googleStatus });
    expect(json.error.message).toContain(message);
  });

  it('takes the key from ?key= and snake_case fields', async () => {
    const res = await post({ contents: base.contents, generation_config: { max_output_tokens: 2 }, system_instruction: { parts: [{ text: 'be brief' }] } }, 'generateContent', { 'content-type': 'application/json' }, '?key=AIza-good');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ candidates: [{ content: { parts: [{ text: 'Hello from' }] }, finishReason: 'MAX_TOKENS' }] });
  });
});

describe('fake Gemini: replies', () => {
  it('answers with usage incl. cached tokens and an image at 258 tokens', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'one two three' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }] };
    const json = (await (await post(body)).json()) as Record<string, unknown>;
    expect(json.usageMetadata).toMatchObject({ promptTokenCount: 3 + IMAGE_TOKENS, candidatesTokenCount: 5, cachedContentTokenCount: 2, totalTokenCount: 3 + IMAGE_TOKENS + 5 });
    expect(json.usageMetadata).toMatchObject(expectedGeminiUsage(body, { cachedTokens: 2 }));
  });

  it('streams SSE chunks with the running usage, thoughts first, finishReason on the last', async () => {
    const body = { ...base, generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } };
    const res = await post(body, 'streamGenerateContent', headers, '?alt=sse');
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toContain('\r\n\r\n');
    const chunks = parseSseData(text).map((d) => JSON.parse(d) as { candidates: Array<{ content: { parts: Array<{ text: string; thought?: boolean }> }; finishReason?: string }>; usageMetadata: Record<string, number> });
    expect(chunks[0]!.candidates[0]!.content.parts[0]).toEqual({ text: FAKE_GEMINI_THOUGHT, thought: true });
    expect(chunks.slice(1).map((c) => c.candidates[0]!.content.parts[0]!.text).join('')).toBe('Hello from the fake Gemini');
    expect(chunks[1]!.usageMetadata).toEqual({ promptTokenCount: 5, totalTokenCount: 5 });
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 13 });
  });

  it('streams a JSON array without alt=sse, and a function call whole', async () => {
    const res = await post({ contents: [{ role: 'user', parts: [{ text: 'weather in Paris?' }] }], tools }, 'streamGenerateContent');
    const list = (await res.json()) as Array<{ candidates: Array<{ content: { parts: Array<Record<string, unknown>> }; finishReason: string }> }>;
    expect(list).toHaveLength(1);
    expect(list[0]!.candidates[0]).toMatchObject({ content: { parts: [{ functionCall: { name: 'get_weather', args: FAKE_GEMINI_ARGS } }] }, finishReason: 'STOP' });
  });

  it('counts tokens, embeds in batches and lists models page by page', async () => {
    expect(await (await post(base, 'countTokens')).json()).toMatchObject({ totalTokens: 5 });
    const emb = await fetch(`${fake.url}/v1beta/models/text-embedding-004:batchEmbedContents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'a b' }] } }, { model: 'models/text-embedding-004', content: { parts: [{ text: 'c' }] }, outputDimensionality: 3 }] }),
    });
    const { embeddings } = (await emb.json()) as { embeddings: Array<{ values: number[] }> };
    expect(embeddings.map((e) => e.values.length)).toEqual([8, 3]);
    const page1 = (await (await fetch(`${fake.url}/v1beta/models?pageSize=3`, { headers })).json()) as { models: Array<{ name: string }>; nextPageToken: string };
    expect(page1.models.map((m) => m.name)).toEqual(['models/gemini-2.0-flash', 'models/gemini-2.5-flash', 'models/gemini-2.5-pro']);
    const page2 = (await (await fetch(`${fake.url}/v1beta/models?pageSize=3&pageToken=${page1.nextPageToken}`, { headers })).json()) as { models: unknown[]; nextPageToken?: string };
    expect(page2).toEqual({ models: [expect.objectContaining({ name: 'models/text-embedding-004' })] });
  });
});

describe('fake Gemini: faults', () => {
  it('answers 429 RESOURCE_EXHAUSTED with retry-after and 503 UNAVAILABLE', async () => {
    const r1 = await post(base, 'generateContent', { ...headers, 'x-fake-fault': JSON.stringify({ status: 429, retryAfter: 2 }) });
    expect(r1.status).toBe(429);
    expect(r1.headers.get('retry-after')).toBe('2');
    expect(await r1.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    fake.setFault({ status: 503, times: 1 });
    const r2 = await post(base);
    expect(await r2.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' } });
    expect((await post(base)).status).toBe(200);
  });

  it('sends an error chunk mid-stream', async () => {
    const res = await post(base, 'streamGenerateContent', { ...headers, 'x-fake-fault': JSON.stringify({ errorAfterEvents: 2 }) }, '?alt=sse');
    const data = parseSseData(await res.text()).map((d) => JSON.parse(d) as Record<string, unknown>);
    expect(data).toHaveLength(3);
    expect(data[2]).toEqual({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
  });
});

/**
 * Whether a served shape uses only what the documented one has: every field documented (with the
 * same type), every array item like some documented item. The fake leaves out what it has no value
 * for (log probabilities, a thought signature), so its shape is within the fixture's, not equal.
 * A function call's `args` are the caller's own object: only their being an object is compared.
 */
function within(served: Shape, documented: Shape): boolean {
  if (typeof served === 'string' || typeof documented === 'string') return served === documented;
  if (Array.isArray(served)) return Array.isArray(documented) && served.every((s) => documented.some((d) => within(s, d)));
  if (Array.isArray(documented)) return false;
  return Object.entries(served).every(([k, s]) => k in documented && (k === 'args' ? typeof s === typeof documented[k] : within(s, documented[k]!)));
}

describe('fake Gemini: serves the documented shapes', () => {
  type Obj = Record<string, unknown>;
  const fixture = (name: string) => providerFixture('gemini', name);
  const thoughtful = { ...base, generationConfig: { thinkingConfig: { includeThoughts: true } } };
  const weather = { contents: [{ role: 'user', parts: [{ text: 'weather in Boston?' }] }], tools, generationConfig: thoughtful.generationConfig };

  it('an answer (text or function call, with thoughts and cached tokens) has generate.response’s fields', async () => {
    const documented = shapeOf(fixture('generate.response').body);
    for (const body of [base, thoughtful, weather]) {
      const json = (await (await post(body)).json()) as Obj;
      expect(within(shapeOf(json), documented), JSON.stringify(json)).toBe(true);
      expect(Object.keys((json.usageMetadata as Obj) ?? {})).toContain('cacheTokensDetails');
    }
  });

  it('every streamed chunk has the fields of a documented chunk', async () => {
    const documented = (fixture('generate.stream').events as Obj[]).map(shapeOf);
    for (const body of [base, thoughtful, weather]) {
      const served = parseSseData(await (await post(body, 'streamGenerateContent', headers, '?alt=sse')).text()).map((d) => JSON.parse(d) as Obj);
      expect(served.length).toBeGreaterThan(0);
      for (const c of served) expect(documented.some((d) => within(shapeOf(c), d)), JSON.stringify(c)).toBe(true);
    }
  });

  it('refusals and a failing stream carry the documented error bodies', async () => {
    const noKey = await post(base, 'generateContent', { 'content-type': 'application/json' });
    expect(noKey.status).toBe(fixture('error.permission-denied').status);
    expect(await noKey.json()).toEqual(fixture('error.permission-denied').body);
    const badKey = await post(base, 'generateContent', { ...headers, 'x-goog-api-key': 'nope' });
    expect(await badKey.json()).toEqual(fixture('error.api-key-invalid').body);
    const noContents = (await (await post({})).json()) as Obj;
    expect(shapeOf(noContents)).toEqual(shapeOf(fixture('error.invalid-argument').body));
    const limited = await post(base, 'generateContent', { ...headers, 'x-fake-fault': JSON.stringify({ status: 429, retryAfter: 21 }) });
    expect(limited.status).toBe(fixture('error.resource-exhausted').status);
    const limitedBody = (await limited.json()) as { error: Obj };
    expect(shapeOf(limitedBody)).toEqual(shapeOf(fixture('error.resource-exhausted').body));
    expect(limitedBody.error.details).toEqual((fixture('error.resource-exhausted').body as { error: Obj }).error.details);
    const failing = await post(base, 'streamGenerateContent', { ...headers, 'x-fake-fault': JSON.stringify({ errorAfterEvents: 1 }) }, '?alt=sse');
    const events = parseSseData(await failing.text()).map((d) => JSON.parse(d) as Obj);
    expect(events.at(-1)).toEqual(fixture('generate.stream.error').events!.at(-1));
    expect(shapeOf(events[0])).toEqual(shapeOf(fixture('generate.stream.error').events![0]));
  });
});
