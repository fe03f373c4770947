import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
const adapter = adapterOf('cohere');

/** Cohere's documented bodies (fixtures/) through the adapter: OpenAI chat, embeddings and rerank callers. */
const MODEL = 'command-a-03-2025';
type Msg = Record<string, unknown>;

/** A converted chat message, its `refusal` (null when present: H1 adds it to every converted answer) set aside. */
function message(out: Record<string, unknown>): Msg {
  const { refusal, ...rest } = ((out.choices as Msg[])[0]!.message as Msg) ?? {};
  expect(refusal ?? null).toBeNull();
  return rest;
}

describe('OpenAI chat caller → Cohere v2 request', () => {
  it('builds the documented chat request: system and user turns, p/k/stop_sequences, Bearer key, /v2/chat', async () => {
    const call = callOf(adapter, { model: MODEL, ch: { key: 'co-key', baseUrl: 'https://api.cohere.com/' } });
    const openai = { model: MODEL, messages: [{ role: 'system', content: 'You respond in concise sentences.' }, { role: 'user', content: 'Tell me about LLMs' }], max_tokens: 100, temperature: 0.3, top_p: 0.75, top_k: 40, stop: '\n\n' };
    const req = await builtRequest(adapter, call, openai);
    expect(req.url).toBe('https://api.cohere.com/v2/chat');
    expect(req.headers).toEqual({ authorization: 'Bearer co-key' });
    expect(req.body).toEqual(fixtureBody('cohere', 'chat.request'));
  });

  it('keeps a tool round trip: the text before a call as tool_plan, the tool result, tools as given, required → REQUIRED', async () => {
    const tools = fixtureBody('cohere', 'chat.request.tools').tools;
    const openai = {
      model: MODEL,
      messages: [
        { role: 'user', content: "What's the weather in Toronto?" },
        { role: 'assistant', content: 'I will look up the weather in Toronto.', tool_calls: [{ id: 'get_weather_1byjy32y4hvq', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }] },
        { role: 'tool', tool_call_id: 'get_weather_1byjy32y4hvq', content: '{"temperature":{"current":"22°C"}}' },
      ],
      tools,
      tool_choice: 'required',
    };
    const req = await builtRequest(adapter, callOf(adapter, { model: MODEL }), openai);
    expect(req.body).toEqual(fixtureBody('cohere', 'chat.request.tools'));
  });

  it('asks /v2/embed for float search_document embeddings of the texts', async () => {
    const call = callOf(adapter, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'embed-v4.0' });
    const req = await builtRequest(adapter, call, { model: 'embed-v4.0', input: ['hello', 'goodbye'] });
    expect(req.url).toBe(`${adapter.defaultBaseUrl}/v2/embed`);
    expect(req.body).toEqual(fixtureBody('cohere', 'embed.request'));
  });
});

describe('Cohere v2 answers → OpenAI chat', () => {
  it('reads the text answer with billed units as usage (cache hits already netted out by Cohere)', () => {
    const call = callOf(adapter, { model: MODEL });
    const reply = adapter.convertResponse(call, fixtureBody('cohere', 'chat.response'), testContext(MODEL))!;
    const body = reply.body!;
    expect(message(body)).toEqual({ role: 'assistant', content: 'LLMs, or Large Language Models, are AI models trained on vast text data to understand and generate human-like language.' });
    expect({ ...body, choices: undefined, created: undefined }).toEqual({ id: 'chatcmpl-c14c80c3-18eb-4519-9460-6c92edd8cfb4', object: 'chat.completion', model: MODEL, choices: undefined, created: undefined, usage: { prompt_tokens: 5, completion_tokens: 22, total_tokens: 27 } });
    expect((body.choices as Msg[])[0]).toMatchObject({ index: 0, logprobs: null, finish_reason: 'stop' });
    // Billed units are what Cohere charges, cache hits already netted out: no second discount (448 hits against 5 billed).
    expect(reply.usage).toMatchObject({ promptTokens: 5, completionTokens: 22, cachedTokens: 0 });
    expect(reply.text()).toBe('LLMs, or Large Language Models, are AI models trained on vast text data to understand and generate human-like language.');
  });

  it('gives thinking as reasoning_content beside the text', () => {
    const body = adapter.convertResponse(callOf(adapter, { model: MODEL }), fixtureBody('cohere', 'chat.response.thinking'), testContext(MODEL))!.body!;
    expect(message(body)).toEqual({ role: 'assistant', content: '17 × 23 = 391.', reasoning_content: 'The user asks for 17 times 23. 17*23 = 391.' });
  });

  it('gives a tool call as an OpenAI tool call with finish_reason tool_calls', () => {
    const body = adapter.convertResponse(callOf(adapter, { model: MODEL }), fixtureBody('cohere', 'chat.response.tool-call'), testContext(MODEL))!.body!;
    expect(message(body)).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'get_weather_1byjy32y4hvq', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }] });
    expect((body.choices as Msg[])[0]!.finish_reason).toBe('tool_calls');
  });

  it('turns embed v2 floats into OpenAI embeddings with the billed input tokens', () => {
    const call = callOf(adapter, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'embed-v4.0' });
    const reply = adapter.convertResponse(call, fixtureBody('cohere', 'embed.response'), testContext('embed-v4.0', { callerBody: { input: ['hello', 'goodbye'] } }))!;
    expect(reply.body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.016296387, -0.008354187, -0.04699707] },
        { object: 'embedding', index: 1, embedding: [0.0096588135, -0.05508423, 0.012672424] },
      ],
      model: 'embed-v4.0',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
  });

  it('passes rerank v1 results with their documents', () => {
    const call = callOf(adapter, { mode: 'rerank', inbound: 'rerank', model: 'rerank-v3.5' });
    const reply = adapter.convertResponse(call, fixtureBody('cohere', 'rerank.response'), testContext('rerank-v3.5', { callerBody: fixtureBody('cohere', 'rerank.request') }))!;
    expect((reply.body as Msg).results).toEqual(fixtureBody('cohere', 'rerank.response').results);
  });
});

describe('Cohere v2 stream → OpenAI chunks', () => {
  const deltas = (frames: unknown[]) => frames.filter((f): f is Msg => typeof f === 'object' && f !== null && Array.isArray((f as Msg).choices) && ((f as Msg).choices as Msg[]).length > 0).map((f) => ({ delta: ((f.choices as Msg[])[0] as Msg).delta, finish: ((f.choices as Msg[])[0] as Msg).finish_reason }));

  it('streams the text deltas, the finish reason and the billed usage chunk', async () => {
    const cx = testContext(MODEL, { stream: true, clientWantsUsage: true });
    const run = await replayStream(adapter, callOf(adapter, { model: MODEL, stream: true }), cx, sseOf(providerFixture('cohere', 'chat.stream')));
    expect(deltas(run.frames)).toEqual([
      { delta: { role: 'assistant', content: '' }, finish: null },
      ...['Large', ' Language', ' Models', ' are', ' AI', ' models.'].map((t) => ({ delta: { content: t }, finish: null })),
      { delta: {}, finish: 'stop' },
    ]);
    const usageChunk = run.frames.at(-2) as Msg;
    expect(usageChunk).toMatchObject({ id: 'chatcmpl-29f14a5a-11de-4cae-9800-25e4747408ea', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } });
    expect(run.frames.at(-1)).toBe('[DONE]');
    expect(run.text).toBe('Large Language Models are AI models.');
  });

  it('streams a tool call as indexed tool-call deltas with finish_reason tool_calls', async () => {
    const cx = testContext(MODEL, { stream: true });
    const run = await replayStream(adapter, callOf(adapter, { model: MODEL, stream: true }), cx, sseOf(providerFixture('cohere', 'chat.stream.tool-call')));
    expect(deltas(run.frames)).toEqual([
      { delta: { role: 'assistant', content: '' }, finish: null },
      { delta: { tool_calls: [{ index: 0, id: 'get_weather_nsz5zm3w56q3', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish: null },
      ...['{"location', '":"Toronto', '"}'].map((a) => ({ delta: { tool_calls: [{ index: 0, function: { arguments: a } }] }, finish: null })),
      { delta: {}, finish: 'tool_calls' },
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 37, completionTokens: 19 });
  });

  it('streams thinking as reasoning_content', async () => {
    const run = await replayStream(adapter, callOf(adapter, { model: MODEL, stream: true }), testContext(MODEL, { stream: true }), sseOf(providerFixture('cohere', 'chat.stream.thinking')));
    expect(deltas(run.frames).slice(1, 3)).toEqual([
      { delta: { reasoning_content: '17*23 = 391.' }, finish: null },
      { delta: { content: '391' }, finish: null },
    ]);
  });

  it('ends a stream whose message-end reports ERROR with an OpenAI error frame', async () => {
    const run = await replayStream(adapter, callOf(adapter, { model: MODEL, stream: true }), testContext(MODEL, { stream: true }), sseOf(providerFixture('cohere', 'chat.stream.error')));
    expect(run.error).toEqual({ status: 500, type: 'upstream_error', code: null, param: null, message: 'internal server error, this has been reported to our developers' });
    expect(run.frames.at(-1)).toEqual({ error: { message: 'internal server error, this has been reported to our developers', type: 'upstream_error', param: null, code: null } });
  });
});

describe('Cohere errors', () => {
  it('reads {"message"} bodies; 429 is retried, 401 and 498 switch the channel off', () => {
    expect(classifiedFixture(adapter, 'cohere', 'error.rate-limit')).toMatchObject({ status: 429, retryable: true, disablesChannel: false, message: providerFixture('cohere', 'error.rate-limit').body && (providerFixture('cohere', 'error.rate-limit').body as Msg).message });
    expect(classifiedFixture(adapter, 'cohere', 'error.invalid-token')).toMatchObject({ status: 401, message: 'invalid api token', disablesChannel: true });
    expect(classifiedFixture(adapter, 'cohere', 'error.trial-token')).toMatchObject({ status: 498, disablesChannel: true });
    expect(classifiedFixture(adapter, 'cohere', 'error.bad-request')).toMatchObject({ status: 400, retryable: false, disablesChannel: false, message: 'invalid request: message must be at least 1 token long or tool results must be specified.' });
  });
});
