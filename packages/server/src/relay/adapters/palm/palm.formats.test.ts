import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
const adapter = adapterOf('palm');

/** PaLM 2's documented generateMessage bodies (fixtures/) through the adapter, for an OpenAI chat caller. */
type Msg = Record<string, unknown>;
const MODEL = 'chat-bison-001';

describe('OpenAI chat → PaLM generateMessage', () => {
  it('puts system text in the context, the user as author "0", the key in the URL', async () => {
    const call = callOf(adapter, { model: MODEL, ch: { key: 'AIza-k', baseUrl: 'https://generativelanguage.googleapis.com' } });
    const req = await builtRequest(adapter, call, { model: MODEL, messages: [{ role: 'system', content: 'Speak like a pirate.' }, { role: 'user', content: 'Hello, how are you?' }], temperature: 0.5, top_p: 0.9 });
    expect(req.url).toBe('https://generativelanguage.googleapis.com/v1beta2/models/chat-bison-001:generateMessage?key=AIza-k');
    expect(req.headers).toEqual({});
    expect(req.body).toEqual(fixtureBody('palm', 'chat.request'));
  });
});

describe('PaLM answers → OpenAI chat', () => {
  it('reads the first candidate; no usage until counted, then written in', () => {
    const reply = adapter.convertResponse(callOf(adapter, { model: MODEL }), fixtureBody('palm', 'chat.response'), testContext(MODEL))!;
    expect(reply.usage).toBeUndefined();
    expect(reply.text()).toBe("Ahoy there, matey! I be doin' fine.");
    reply.withUsage!({ promptTokens: 9, completionTokens: 8, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, audioInputTokens: 0, audioOutputTokens: 0 });
    expect(reply.body).toMatchObject({ object: 'chat.completion', model: MODEL, usage: { prompt_tokens: 9, completion_tokens: 8, total_tokens: 17 } });
    expect((reply.body!.choices as Msg[])[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: "Ahoy there, matey! I be doin' fine." }, finish_reason: 'stop' });
  });

  it('treats a 200 with filters and no candidate as an error', () => {
    const call = callOf(adapter, { model: MODEL });
    const blocked = fixtureBody('palm', 'chat.response.blocked');
    expect(adapter.isErrorReply(call, blocked)).toBe(true);
    expect(adapter.classifyError(400, 200, JSON.stringify(blocked))).toMatchObject({ status: 400, code: 'palm_blocked', message: 'PaLM returned no candidate: OTHER' });
  });

  it('answers a streamed caller with the whole reply as one chunk, then [DONE]', async () => {
    const cx = testContext(MODEL, { stream: true });
    const t = adapter.streamTransformer(callOf(adapter, { model: MODEL, stream: true }), cx);
    expect(t).toBeDefined();
    const run = await replayStream(adapter, callOf(adapter, { model: MODEL, stream: true }), cx, JSON.stringify(fixtureBody('palm', 'chat.response')));
    expect(run.frames).toHaveLength(2);
    expect((run.frames[0] as Msg).choices).toEqual([{ index: 0, delta: { role: 'assistant', content: "Ahoy there, matey! I be doin' fine." }, finish_reason: 'stop' }]);
    expect(run.frames[1]).toBe('[DONE]');
  });
});

describe('PaLM errors', () => {
  it('reads Google error bodies; API_KEY_INVALID switches the channel off', () => {
    expect(classifiedFixture(adapter, 'palm', 'error.api-key-invalid')).toMatchObject({ status: 400, code: 'API_KEY_INVALID', message: 'API key not valid. Please pass a valid API key.', disablesChannel: true });
    expect(classifiedFixture(adapter, 'palm', 'error.not-found')).toMatchObject({ status: 404, code: 'NOT_FOUND', disablesChannel: false });
  });
});
