import { startFakeAnthropic, startFakeGemini, type FakeAnthropic, type FakeGemini } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { assertAllConform, assertConforms, openapiAvailable, openapiSkipReason } from '../../test-support/openapi-contract.js';

/**
 * Every OpenAI-format answer ModelGate sends, through a real server, for OpenAI, Anthropic and Gemini
 * channels: validated against OpenAI's published schema as sent (raw bytes), and each stream read
 * to its end by the official SDK's own accumulators.
 */
if (!openapiAvailable) console.warn(`relay.conformance skipped: ${openapiSkipReason}`);
const suite = describe.skipIf(!openapiAvailable);

const CLAUDE = 'claude-sonnet-4-5';
const GEMINI = 'gemini-2.0-flash';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
let h: RelayHarness;
let claude: FakeAnthropic;
let gemini: FakeGemini;
let c: TestCaller;

beforeAll(async () => {
  if (!openapiAvailable) return;
  h = await startRelayHarness();
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'], cacheReadTokens: 1, cacheCreationTokens: 1 });
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'], cachedTokens: 1 });
  await priceModels(h, ['gpt-4o-mini', 'text-embedding-3-small', CLAUDE, GEMINI]);
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,text-embedding-3-small' });
  await addChannel(h.root, { type: 14, key: 'sk-ant-upstream', base_url: claude.url, models: CLAUDE });
  await addChannel(h.root, { type: 24, key: 'AIza-upstream', base_url: gemini.url, models: GEMINI });
  c = await addCaller(h);
});
afterAll(async () => {
  await claude?.close();
  await gemini?.close();
  await h?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${h.server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const sseData = async (res: Response): Promise<unknown[]> =>
  (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as unknown);

suite.each(['gpt-4o-mini', CLAUDE, GEMINI])('OpenAI answers for a %s channel conform', (model) => {
  it('chat, and chat stream with include_usage (SDK accumulator too)', async () => {
    const res = await post('/v1/chat/completions', { model, messages });
    expect(res.status).toBe(200);
    assertConforms('CreateChatCompletionResponse', await res.json());
    const frames = (await sseData(await post('/v1/chat/completions', { model, messages, stream: true, stream_options: { include_usage: true } }))) as Array<Record<string, unknown>>;
    assertAllConform('CreateChatCompletionStreamResponse', frames);
    expect(frames.at(-1)!.usage).toMatchObject({ total_tokens: expect.any(Number) });
    const final = await c.client.chat.completions.stream({ model, messages, stream_options: { include_usage: true } }).finalChatCompletion();
    expect(final.choices[0]!.message.content?.length).toBeGreaterThan(0);
  });

  it('Responses, and its stream (SDK accumulator too)', async () => {
    const res = await post('/v1/responses', { model, input: 'Hello there friend' });
    expect(res.status).toBe(200);
    assertConforms('Response', await res.json());
    const events = await sseData(await post('/v1/responses', { model, input: 'Hello there friend', stream: true }));
    assertAllConform('ResponseStreamEvent', events);
    const final = await c.client.responses.stream({ model, input: 'Hello there friend' }).finalResponse();
    expect(final.output_text.length).toBeGreaterThan(0);
  });
});

suite('other OpenAI answers and errors', () => {
  it('embeddings and /v1/models', async () => {
    assertConforms('CreateEmbeddingResponse', await (await post('/v1/embeddings', { model: 'text-embedding-3-small', input: ['a', 'b'] })).json());
    const models = await fetch(`${h.server.url}/v1/models`, { headers: { authorization: `Bearer ${c.key}` } });
    // ModelGate's list adds `success` (a new-api compatibility field); the schema allows extra keys.
    assertConforms('ListModelsResponse', await models.json());
  });

  it('a model no channel offers: 404 model_not_found in each caller format', async () => {
    const openai = await post('/v1/chat/completions', { model: 'no-such-model', messages }, { 'accept-language': 'en' });
    expect(openai.status).toBe(404);
    const body = (await openai.json()) as { error: Record<string, unknown> };
    assertConforms('ErrorResponse', body);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
    expect(String(body.error.message)).toContain('no-such-model');

    const anthropic = await post('/v1/messages', { model: 'no-such-model', max_tokens: 10, messages }, { 'x-api-key': c.key });
    expect(anthropic.status).toBe(404);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });

    const google = await post('/v1beta/models/no-such-model:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    expect(google.status).toBe(404);
    expect(await google.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });
});
