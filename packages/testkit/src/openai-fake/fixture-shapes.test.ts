import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { providerFixture } from '../provider-fixtures.js';
import { startFakeOpenAI } from './server.js';
import { parseSseData } from './sse-client.js';
import type { FakeOpenAI } from './types.js';

/**
 * What the fake serves has the shape of OpenAI's documented bodies
 * (server/src/relay/adapters/openai/fixtures): the same fields, with the fake's own values.
 */
type Obj = Record<string, unknown>;
const KEY = 'sk-shapes';
const fixture = (name: string) => providerFixture('openai', name);
const documented = (name: string) => fixture(name).body as Obj;
const without = (o: Obj, ...keys: string[]): Obj => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKeys: [KEY], strictModels: true });
});
afterAll(() => fake.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${fake.baseURL}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('fake OpenAI serves the documented shapes', () => {
  it('a chat completion has chat.response’s fields (and the system_fingerprint many models still send)', async () => {
    const json = (await (await post('/chat/completions', documented('chat.request'))).json()) as Obj;
    expect(typeof json.system_fingerprint).toBe('string');
    expect(shapeOf(without(json, 'system_fingerprint'))).toEqual(shapeOf(documented('chat.response')));
  });

  it('chat chunks have chat.stream-usage’s fields; the usage chunk the usage of chat.response', async () => {
    const events = fixture('chat.stream-usage').events as Obj[];
    const text = await (await post('/chat/completions', { ...documented('chat.request'), stream: true, stream_options: { include_usage: true } })).text();
    const data = parseSseData(text);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Obj);
    // Deltas differ per chunk (role, words, finish): the envelope and choice fields are compared.
    // service_tier is the fake's extra; usage is compared below.
    const envelope = (c: Obj) => JSON.stringify(shapeOf({ ...without(c, 'service_tier', 'usage'), choices: (c.choices as Obj[]).map((ch) => ({ ...ch, delta: {} })) }));
    for (const c of chunks) expect(events.map(envelope), JSON.stringify(c)).toContain(envelope(c));
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(shapeOf(chunks.at(-1)!.usage)).toEqual(shapeOf(documented('chat.response').usage));
    expect(chunks.at(-1)!.choices).toEqual([]);
  });

  it('a Responses answer has responses.response’s fields, each output item its documented shape', async () => {
    const doc = documented('responses.response');
    const items = doc.output as Obj[];
    for (const [input, type] of [
      ['one two three', 'message'],
      ['weather in Paris?', 'function_call'],
    ] as const) {
      const json = (await (await post('/responses', { model: 'gpt-4o', instructions: 'Answer briefly.', input, tools: doc.tools })).json()) as Obj;
      expect((json.output as Obj[]).map((o) => o.type)).toEqual([type]);
      expect(shapeOf(json)).toEqual(shapeOf({ ...doc, output: items.filter((o) => o.type === type) }));
    }
  });

  it('every Responses event has the shape of the documented event of its type, in the documented order', async () => {
    const docEvents = fixture('responses.stream').events as Obj[];
    const kinds = docEvents.map((e) => e.type).filter((k, i, all) => k !== all[i - 1]);
    const docItems = (documented('responses.response').output as Obj[]).map(shapeOf);
    /** An event without its response's output list (each item is compared on its own). */
    const bare = (e: Obj) => (e.response ? { ...e, response: { ...(e.response as Obj), output: [] } } : e);
    for (const input of ['one two three', 'weather in Paris?']) {
      const text = await (await post('/responses', { model: 'gpt-4o', instructions: 'Answer briefly.', input, stream: true, tools: documented('responses.response').tools })).text();
      const served = parseSseData(text).map((d) => JSON.parse(d) as Obj);
      expect([...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1])).toEqual(served.map((e) => e.type));
      // The served kinds (repeats collapsed) come in the documented order: a subsequence of it.
      const servedKinds = served.map((e) => e.type).filter((k, i, all) => k !== all[i - 1]);
      let at = 0;
      for (const k of servedKinds) at = kinds.indexOf(k, at) + 1 || Infinity;
      expect(at, servedKinds.join(' ')).toBeLessThan(Infinity);
      for (const e of served) {
        const like = docEvents.find((d) => d.type === e.type && (!d.item || (d.item as Obj).type === (e.item as Obj | undefined)?.type));
        expect(like, String(e.type)).toBeDefined();
        expect(shapeOf(bare(e)), String(e.type)).toEqual(shapeOf(bare(like!)));
        for (const item of ((e.response as Obj | undefined)?.output as Obj[] | undefined) ?? []) expect(docItems).toContainEqual(shapeOf(item));
      }
    }
  });

  it('the model list has models.response’s shape', async () => {
    const json = (await (await fetch(`${fake.baseURL}/models`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(documented('models.response')));
  });

  it('errors carry the documented fields, type and code', async () => {
    const cases: Array<[string, () => Promise<Response>]> = [
      ['error.invalid-request', () => post('/chat/completions', { model: 'gpt-9', messages: [{ role: 'user', content: 'hi' }] })],
      ['error.rate-limit', () => post('/chat/completions', documented('chat.request'), { 'x-fake-fault': JSON.stringify({ status: 429 }) })],
    ];
    for (const [name, call] of cases) {
      const res = await call();
      const doc = fixture(name);
      expect(res.status, name).toBe(doc.status);
      const body = (await res.json()) as { error: Obj };
      expect(shapeOf(body), name).toEqual(shapeOf(doc.body));
      const { error } = doc.body as { error: Obj };
      expect(body.error, name).toMatchObject({ type: error.type, code: error.code });
    }
  });
});
