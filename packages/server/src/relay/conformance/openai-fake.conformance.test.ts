import { startFakeOpenAI, type FakeOpenAI } from '@modelgate/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertAllConform, assertConforms, openapiAvailable, openapiSkipReason } from '../../test-support/openapi-contract.js';

/**
 * The testkit's fake OpenAI answers what OpenAI's published schema requires, so a test of a
 * converter against the fake sees the converter's gaps, not the fake's. Raw fetch: the bodies are
 * validated exactly as sent, before any SDK parsing.
 */
if (!openapiAvailable) console.warn(`openai-fake.conformance skipped: ${openapiSkipReason}`);
const suite = describe.skipIf(!openapiAvailable);

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKeys: ['sk-conf'] });
});
afterAll(() => fake?.close());

const post = async (path: string, body: unknown) =>
  fetch(`${fake.baseURL}${path}`, { method: 'POST', headers: { authorization: 'Bearer sk-conf', 'content-type': 'application/json' }, body: JSON.stringify(body) });
const sseData = async (res: Response): Promise<unknown[]> =>
  (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as unknown);
const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];

suite('the fake OpenAI conforms to the OpenAPI schema', () => {
  it('chat completion, and its stream with include_usage', async () => {
    assertConforms('CreateChatCompletionResponse', await (await post('/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).json());
    const frames = await sseData(await post('/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }));
    assertAllConform('CreateChatCompletionStreamResponse', frames);
    expect(frames.length).toBeGreaterThan(1);
  });

  it('Responses: text and function call, whole and streamed', async () => {
    for (const body of [{ model: 'gpt-4o', input: 'hi', instructions: 'be brief' }, { model: 'gpt-4o', input: 'weather?', tools, tool_choice: 'required' }]) {
      const whole = (await (await post('/responses', body)).json()) as Record<string, unknown>;
      assertConforms('Response', whole);
      const events = (await sseData(await post('/responses', { ...body, stream: true }))) as Array<Record<string, unknown>>;
      assertAllConform('ResponseStreamEvent', events);
      expect(events.at(-1)?.type).toBe('response.completed');
    }
  });

  it('embeddings, models and an error', async () => {
    assertConforms('CreateEmbeddingResponse', await (await post('/embeddings', { model: 'text-embedding-3-small', input: ['a', 'b'] })).json());
    assertConforms('ListModelsResponse', await (await fetch(`${fake.baseURL}/models`, { headers: { authorization: 'Bearer sk-conf' } })).json());
    const refused = await fetch(`${fake.baseURL}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-wrong', 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    assertConforms('ErrorResponse', await refused.json());
  });

  it('the official SDK reads the fake Responses stream to a final response', async () => {
    const client = new OpenAI({ apiKey: 'sk-conf', baseURL: fake.baseURL, maxRetries: 0 });
    const final = await client.responses.stream({ model: 'gpt-4o', input: 'hi' }).finalResponse();
    expect(final.output_text.length).toBeGreaterThan(0);
  });
});
