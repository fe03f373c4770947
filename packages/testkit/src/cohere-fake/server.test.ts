import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { parseSseData } from '../openai-fake/sse-client.js';
import { providerFixture } from '../provider-fixtures.js';
import { cohereChatInputTokens, FAKE_COHERE_TOOL_ARGS, startFakeCohere, type FakeCohere } from './index.js';

type Obj = Record<string, unknown>;
const KEY = 'co-test-key';
const fixture = (name: string) => providerFixture('cohere', name);
/** A documented body without the fields the fake never serves (it has no prompt cache). */
const withoutCache = (body: Obj): Obj => {
  const usage = { ...(body.usage as Obj) };
  delete usage.cached_tokens;
  return { ...body, usage };
};

describe('cohere fake serves the documented shapes', () => {
  let fake: FakeCohere;
  const post = (path: string, body: unknown, key = KEY) => fetch(`${fake.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const chatBody = fixture('chat.request').body as Obj;

  beforeAll(async () => {
    fake = await startFakeCohere({ apiKeys: [KEY] });
  });
  afterAll(() => fake.close());

  it('a chat answer has chat.response’s shape, with the fake’s words and usage', async () => {
    const res = await post('/v2/chat', { ...chatBody, max_tokens: undefined });
    const json = (await res.json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(withoutCache(fixture('chat.response').body as Obj)));
    expect(json.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Hello from the fake Cohere' }] });
    const input = cohereChatInputTokens(chatBody);
    expect(json.usage).toEqual({ billed_units: { input_tokens: input, output_tokens: 5 }, tokens: { input_tokens: input + 7, output_tokens: 5 } });
  });

  it('a tool call has chat.response.tool-call’s shape', async () => {
    const tools = (fixture('chat.request.tools').body as Obj).tools;
    const json = (await (await post('/v2/chat', { model: 'command-a-03-2025', messages: [{ role: 'user', content: 'weather?' }], tools })).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(fixture('chat.response.tool-call').body));
    expect(json.finish_reason).toBe('TOOL_CALL');
    expect(((json.message as Obj).tool_calls as Obj[])[0]!.function).toEqual({ name: 'get_weather', arguments: JSON.stringify(FAKE_COHERE_TOOL_ARGS) });
  });

  it('every streamed event has the shape of the documented event of its type', async () => {
    for (const [name, extra] of [
      ['chat.stream', {}],
      ['chat.stream.tool-call', { tools: (fixture('chat.request.tools').body as Obj).tools }],
    ] as const) {
      const text = await (await post('/v2/chat', { model: 'command-a-03-2025', messages: [{ role: 'user', content: 'hi there' }], stream: true, ...extra })).text();
      const served = parseSseData(text).map((d) => JSON.parse(d) as Obj);
      const names = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
      expect(names).toEqual(served.map((e) => e.type));
      const documented = fixture(name).events as Obj[];
      // Same event kinds, in the documented order (the fake sends its own number of deltas).
      expect([...new Set(served.map((e) => e.type))]).toEqual([...new Set(documented.map((e) => e.type))]);
      for (const ev of served) {
        const like = documented.find((d) => d.type === ev.type)!;
        expect(shapeOf(ev), `${name} ${String(ev.type)}`).toEqual(shapeOf(ev.type === 'message-end' ? { ...like, delta: withoutCache(like.delta as Obj) } : like));
      }
    }
  });

  it('embed and rerank answers have the documented shapes', async () => {
    const embed = (await (await post('/v2/embed', fixture('embed.request').body)).json()) as Obj;
    expect(shapeOf(embed)).toEqual(shapeOf(fixture('embed.response').body));
    expect(embed.meta).toEqual({ api_version: { version: '2' }, billed_units: { input_tokens: 2 } });
    const rerank = (await (await post('/v1/rerank', fixture('rerank.request').body)).json()) as Obj;
    expect(shapeOf(rerank)).toEqual(shapeOf(fixture('rerank.response').body));
    expect(rerank.results).toHaveLength(2);
  });

  it('refusals have the documented error bodies and statuses', async () => {
    const cases: Array<[string, () => Promise<Response>]> = [
      ['error.bad-request', () => post('/v2/chat', { model: 'command-a-03-2025', messages: [] })],
      ['error.invalid-token', () => post('/v2/chat', chatBody, 'wrong-key')],
      [
        'error.rate-limit',
        () => {
          fake.setFault({ times: 1 });
          return post('/v2/chat', chatBody);
        },
      ],
    ];
    for (const [name, call] of cases) {
      const res = await call();
      const doc = fixture(name);
      expect(res.status, name).toBe(doc.status);
      const body = (await res.json()) as Obj;
      expect(shapeOf(body), name).toEqual(shapeOf(doc.body));
      if (name !== 'error.bad-request') expect(body).toEqual(doc.body);
    }
  });
});
