import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './server.js';
import { FAKE_TOOL_ARGUMENTS } from './tools.js';
import type { FakeOpenAI } from './types.js';

let fake: FakeOpenAI;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKeys: ['sk-resp'] });
  client = new OpenAI({ apiKey: 'sk-resp', baseURL: fake.baseURL, maxRetries: 0 });
});
afterAll(() => fake.close());

const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: false }];

describe('fake OpenAI: /v1/responses', () => {
  it('answers a response with the chat fake’s token rules', async () => {
    const res = await client.responses.create({ model: 'gpt-4o', instructions: 'be brief', input: 'one two three' });
    expect(res.output_text).toBe('Hello from the fake OpenAI');
    expect(res).toMatchObject({ object: 'response', status: 'completed', usage: { input_tokens: 5, output_tokens: 5, total_tokens: 10 } });
  });

  it('streams the documented event sequence with names and sequence numbers', async () => {
    const events = [];
    for await (const ev of await client.responses.create({ model: 'gpt-4o', input: 'hi', stream: true, max_output_tokens: 2 })) events.push(ev);
    expect(events.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.incomplete',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual([...events.keys()]);
    expect(events.at(-1)).toMatchObject({ response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 2 } } });
    const raw = await fetch(`${fake.baseURL}/responses`, { method: 'POST', headers: { authorization: 'Bearer sk-resp', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', input: 'hi', stream: true }) });
    expect((await raw.text()).startsWith('event: response.created\ndata: {"type":"response.created"')).toBe(true);
  });

  it('calls a flat function tool, streams its arguments, and answers its output', async () => {
    const stream = client.responses.stream({ model: 'gpt-4o', input: 'weather in Paris?', tools });
    const final = await stream.finalResponse();
    const call = final.output[0] as { type: string; name: string; arguments: string; call_id: string };
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: FAKE_TOOL_ARGUMENTS });
    const next = await client.responses.create({
      model: 'gpt-4o',
      tools,
      input: [{ role: 'user', content: 'weather in Paris?' }, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(next.output_text).toBe('Hello from the fake OpenAI');
  });

  it('refuses a chat body as OpenAI does', async () => {
    const err = await client.responses.create({ model: 'gpt-4o', messages: [] } as never).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'input' });
  });
});
