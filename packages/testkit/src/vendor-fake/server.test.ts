import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { parseSseData } from '../openai-fake/sse-client.js';
import { providerFixture } from '../provider-fixtures.js';
import { FAKE_VENDOR_KEY, FAKE_VENDOR_TEXT, startFakeVendor, type FakeVendor } from './index.js';

type Obj = Record<string, unknown>;
const fixture = (name: string) => providerFixture('openai-compatible', name);
const messages = [{ role: 'user', content: 'hello there' }];

describe('vendor fakes serve the documented shapes', () => {
  let minimax: FakeVendor;
  let moonshot: FakeVendor;
  let deepseek: FakeVendor;
  const post = (f: FakeVendor, path: string, body: unknown, key = FAKE_VENDOR_KEY) => fetch(`${f.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    minimax = await startFakeVendor('minimax');
    moonshot = await startFakeVendor('moonshot');
    deepseek = await startFakeVendor('deepseek');
  });
  afterAll(async () => {
    await minimax.close();
    await moonshot.close();
    await deepseek.close();
  });

  it('minimax: an answer, the stream frames and a failure have the documented shapes', async () => {
    const answer = (await (await post(minimax, '/v1/text/chatcompletion_v2', { model: 'abab6.5s-chat', messages })).json()) as Obj;
    expect(shapeOf(answer)).toEqual(shapeOf(fixture('minimax.chat.response').body));
    expect(answer.usage).toEqual({ prompt_tokens: 2, completion_tokens: 5, total_tokens: 7, total_characters: 0 });
    const frames = parseSseData(await (await post(minimax, '/v1/text/chatcompletion_v2', { model: 'abab6.5s-chat', messages, stream: true })).text()).map((d) => JSON.parse(d) as Obj);
    const documented = fixture('minimax.chat.stream').events as Obj[];
    expect(shapeOf(frames.at(-1))).toEqual(shapeOf(documented.at(-1)));
    for (const f of frames.slice(0, -1)) expect([shapeOf(documented[0]), shapeOf(documented[1])]).toContainEqual(shapeOf(f));
    const refused = await post(minimax, '/v1/text/chatcompletion_v2', { model: 'abab6.5s-chat', messages }, 'wrong');
    expect(refused.status).toBe(200);
    expect(await refused.json()).toEqual(fixture('minimax.error.base-resp').body);
    minimax.setBaseResp({ code: 1008, msg: 'insufficient balance' });
    const broke = await post(minimax, '/v1/text/chatcompletion_v2', { model: 'abab6.5s-chat', messages });
    expect(await broke.json()).toEqual(fixture('minimax.error.insufficient-balance').body);
    minimax.setBaseResp(null);
  });

  it('moonshot: the usage rides in the final choice; a bad key is the documented error', async () => {
    const data = parseSseData(await (await post(moonshot, '/v1/chat/completions', { model: 'moonshot-v1-8k', messages, stream: true })).text());
    const last = JSON.parse(data.at(-2)!) as Obj;
    expect(shapeOf(last)).toEqual(shapeOf(fixture('moonshot.chat.stream.choice-usage').events!.at(-1)));
    expect((last.choices as Obj[])[0]!.usage).toEqual({ prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 });
    const refused = await post(moonshot, '/v1/chat/completions', { model: 'moonshot-v1-8k', messages }, 'wrong');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual(fixture('moonshot.error.auth').body);
  });

  it('deepseek: answers with cache fields, reasoning chunks and the documented auth error', async () => {
    deepseek.setCacheHit(1);
    const answer = (await (await post(deepseek, '/chat/completions', { model: 'deepseek-reasoner', messages })).json()) as { choices: Array<{ message: Obj }> };
    const documentedAnswer = fixture('deepseek.usage.cache').body as Obj;
    // The fake's message carries no `refusal` (DeepSeek omits it; the fixture adds it for the SDK type).
    const choice = (documentedAnswer.choices as Array<{ message: Obj }>)[0]!;
    const { refusal: _r, ...message } = choice.message;
    expect(shapeOf(answer)).toEqual(shapeOf({ ...documentedAnswer, choices: [{ ...choice, message }] }));
    expect(answer.choices[0]!.message.content).toBe(FAKE_VENDOR_TEXT);
    const frames = parseSseData(await (await post(deepseek, '/chat/completions', { model: 'deepseek-reasoner', messages, stream: true })).text());
    expect(frames.at(-1)).toBe('[DONE]');
    const documented = fixture('deepseek.chat.stream.reasoning').events as Obj[];
    const shapes = documented.map(shapeOf);
    for (const f of frames.slice(0, -1)) expect(shapes).toContainEqual(shapeOf(JSON.parse(f)));
    const refused = await post(deepseek, '/chat/completions', { model: 'deepseek-chat', messages }, 'sk-wrong-abcd');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual(fixture('deepseek.error.auth').body);
  });
});
