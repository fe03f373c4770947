import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { parseSseData } from '../openai-fake/sse-client.js';
import { providerFixture } from '../provider-fixtures.js';
import { startFakeAnthropic, type FakeAnthropic } from './index.js';
import { FAKE_SIGNATURE } from './reply.js';
import { expectedMessagesUsage, FAKE_THINKING, FAKE_TOOL_INPUT } from './usage.js';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKeys: ['sk-ant'], cacheReadTokens: 2, cacheCreationTokens: 1 });
});
afterAll(() => fake.close());

const headers = { 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
const base = { model: 'claude-3-5-sonnet-20241022', max_tokens: 100, messages: [{ role: 'user', content: 'one two three four five' }] };
const post = (body: unknown, h: Record<string, string> = headers) => fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: h, body: JSON.stringify(body) });

function events(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split('\n\n')
    .filter((e) => e.trim())
    .map((e) => {
      const [ev, data] = e.split('\n');
      return { event: ev!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown> };
    });
}

describe('fake Anthropic: requests are checked as the Messages API documents them', () => {
  it.each([
    ['no x-api-key', { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, base, 401, 'authentication_error', 'x-api-key header is required'],
    ['a wrong key', { ...headers, 'x-api-key': 'nope' }, base, 401, 'authentication_error', 'invalid x-api-key'],
    ['no anthropic-version', { 'x-api-key': 'sk-ant', 'content-type': 'application/json' }, base, 400, 'invalid_request_error', 'anthropic-version: header is required'],
    ['no max_tokens', headers, { model: base.model, messages: base.messages }, 400, 'invalid_request_error', 'max_tokens: Field required'],
    ['an OpenAI field', headers, { ...base, n: 2 }, 400, 'invalid_request_error', 'n: Extra inputs are not permitted'],
    ['a system role in messages', headers, { ...base, messages: [{ role: 'system', content: 'x' }] }, 400, 'invalid_request_error', "messages.0.role: Input should be 'user' or 'assistant'"],
    ['temperature above 1', headers, { ...base, temperature: 1.5 }, 400, 'invalid_request_error', 'temperature: Input should be less than or equal to 1'],
    ['an OpenAI image part', headers, { ...base, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x' } }] }] }, 400, 'invalid_request_error', "messages.0.content.0.type: Input tag 'image_url' is not allowed in a user message"],
    ['a tool_result without its tool_use', headers, { ...base, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] }] }, 400, 'invalid_request_error', 'unexpected `tool_use_id`'],
    ['a thinking budget at max_tokens', headers, { ...base, thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 2000 }, 400, 'invalid_request_error', '`max_tokens` must be greater than `thinking.budget_tokens`'],
    [
      'thinking on while answering a tool call whose turn lost its thinking block',
      headers,
      {
        ...base,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        messages: [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        ],
      },
      400,
      'invalid_request_error',
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`',
    ],
  ] as const)('refuses %s with Anthropic’s error body', async (_name, h, body, status, type, message) => {
    const res = await post(body, h);
    expect(res.status).toBe(status);
    const json = (await res.json()) as { type: string; error: { type: string; message: string }; request_id: string };
    expect(json).toMatchObject({ type: 'error', error: { type } });
    expect(json.error.message).toContain(message);
    expect(json.request_id).toMatch(/^req_/);
  });
});

describe('fake Anthropic: replies', () => {
  it('answers a message with usage split into uncached input, cache reads and cache writes', async () => {
    const res = await post({ ...base, system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }] });
    const json = (await res.json()) as Record<string, unknown>;
    expect(json).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hello from the fake Claude' }], stop_reason: 'end_turn' });
    // 7 prompt words: 2 read from the cache, 1 written, 4 uncached.
    expect(json.usage).toMatchObject({ input_tokens: 4, cache_read_input_tokens: 2, cache_creation_input_tokens: 1, output_tokens: 5 });
    expect(json.usage).toMatchObject(expectedMessagesUsage({ ...base, system: 'be brief' }, { cacheReadTokens: 2, cacheCreationTokens: 1 }));
  });

  it('streams a tool call: tool_use block, input_json_delta fragments (the first empty), stop_reason tool_use', async () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }];
    const res = await post({ ...base, stream: true, tools, messages: [{ role: 'user', content: 'weather in Paris?' }] });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const evs = events(await res.text());
    expect(evs.map((e) => e.event).filter((e) => e !== 'content_block_delta')).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(evs[1]!.data).toMatchObject({ content_block: { type: 'tool_use', name: 'get_weather', input: {} } });
    const fragments = evs.filter((e) => e.event === 'content_block_delta').map((e) => (e.data.delta as { partial_json: string }).partial_json);
    expect(fragments[0]).toBe('');
    expect(JSON.parse(fragments.join(''))).toEqual(FAKE_TOOL_INPUT);
    expect(evs.at(-2)!.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } });
    expect((evs[0]!.data.message as { usage: Record<string, number> }).usage).toMatchObject({ cache_read_input_tokens: 2, output_tokens: 1 });
  });

  it('streams thinking first, ending with its signature_delta', async () => {
    const res = await post({ ...base, max_tokens: 2048, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 } });
    const evs = events(await res.text());
    const thinking = evs.filter((e) => (e.data.delta as { type?: string } | undefined)?.type === 'thinking_delta').map((e) => (e.data.delta as { thinking: string }).thinking);
    expect(thinking.join('')).toBe(FAKE_THINKING);
    const sig = evs.findIndex((e) => (e.data.delta as { type?: string } | undefined)?.type === 'signature_delta');
    expect((evs[sig]!.data.delta as { signature: string }).signature).toBe(FAKE_SIGNATURE);
    expect(evs[sig + 1]!.event).toBe('content_block_stop');
    expect(evs.at(-2)!.data).toMatchObject({ usage: { output_tokens: 5 + 3 } });
  });

  it('counts tokens', async () => {
    const res = await fetch(`${fake.url}/v1/messages/count_tokens`, { method: 'POST', headers, body: JSON.stringify({ model: base.model, messages: base.messages }) });
    expect(await res.json()).toEqual({ input_tokens: 5 });
  });
});

describe('fake Anthropic: faults', () => {
  it('answers 529 overloaded_error and 429 rate_limit_error with retry-after', async () => {
    fake.setFault({ status: 529, times: 1 });
    const r1 = await post(base);
    expect(r1.status).toBe(529);
    expect(await r1.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const r2 = await post(base, { ...headers, 'x-fake-fault': JSON.stringify({ status: 429, retryAfter: 3 }) });
    expect(r2.status).toBe(429);
    expect(r2.headers.get('retry-after')).toBe('3');
    expect(await r2.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    expect((await post(base)).status).toBe(200);
  });

  it('sends an error event mid-stream', async () => {
    const res = await post({ ...base, stream: true }, { ...headers, 'x-fake-fault': JSON.stringify({ errorAfterEvents: 4 }) });
    expect(res.status).toBe(200);
    const data = parseSseData(await res.text()).map((d) => JSON.parse(d) as { type: string });
    expect(data.map((d) => d.type)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'error']);
    expect(data.at(-1)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });
});

describe('fake Anthropic: serves the documented shapes', () => {
  type Obj = Record<string, unknown>;
  const fixture = (name: string) => providerFixture('anthropic', name);
  const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }];
  const thinking = { type: 'enabled', budget_tokens: 1024 };
  /** A block without the fields the fake leaves out (reply.ts: the API omits `citations` and `caller` when it has none). */
  const bare = (block: Obj): Obj => Object.fromEntries(Object.entries(block).filter(([k]) => k !== 'citations' && k !== 'caller'));
  /** A block's shape, a tool call's `input` (the caller's own object) compared as an object only. */
  const blockShape = (b: Obj) => shapeOf('input' in b ? { ...bare(b), input: {} } : bare(b));
  const withoutBlockExtras = (e: Obj): Obj => {
    if (e.content_block) return { ...e, content_block: bare(e.content_block as Obj) };
    if (Array.isArray(e.content)) return { ...e, content: (e.content as Obj[]).map(bare) };
    return e;
  };
  const kind = (e: Obj) => [e.type, (e.content_block as Obj | undefined)?.type, (e.delta as Obj | undefined)?.type].join('/');

  it('a text answer has messages.response.text’s shape', async () => {
    const json = (await (await post(base)).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(withoutBlockExtras(fixture('messages.response.text').body as Obj)));
  });

  it('a thinking tool call has messages.response’s fields, each block its documented shape', async () => {
    const json = (await (await post({ ...base, max_tokens: 2048, thinking, tools, messages: [{ role: 'user', content: 'weather in Paris?' }] })).json()) as Obj;
    const documented = fixture('messages.response').body as Obj;
    expect(shapeOf({ ...json, content: [] })).toEqual(shapeOf({ ...documented, content: [] }));
    expect((json.content as Obj[]).map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    for (const b of json.content as Obj[]) expect(blockShape(b), String(b.type)).toEqual(blockShape((documented.content as Obj[]).find((d) => d.type === b.type)!));
  });

  it('every streamed event has the shape of the documented event of its kind', async () => {
    const documented = fixture('messages.stream').events as Obj[];
    for (const extra of [{}, { tools, messages: [{ role: 'user', content: 'weather in Paris?' }] }]) {
      const evs = events(await (await post({ ...base, max_tokens: 2048, stream: true, thinking, ...extra })).text());
      for (const { event, data } of evs) {
        expect(event).toBe(data.type);
        const like = documented.find((d) => kind(d) === kind(data));
        expect(like, kind(data)).toBeDefined();
        expect(shapeOf(data), kind(data)).toEqual(shapeOf(withoutBlockExtras(like!)));
      }
    }
  });

  it('a failing stream ends with the documented error event', async () => {
    const res = await post({ ...base, stream: true }, { ...headers, 'x-fake-fault': JSON.stringify({ errorAfterEvents: 2 }) });
    const data = parseSseData(await res.text()).map((d) => JSON.parse(d) as Obj);
    expect(data.at(-1)).toEqual(fixture('messages.stream.error').events!.at(-1));
  });
});
