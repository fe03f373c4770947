import { GenerateContentResponse } from '@google/genai';
import { providerFixture, providerFixtureNames } from '@modelgate/testkit';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
import { valueTypeProblems } from '../../../test-support/fixture-types.js';
import type { ConvertContext } from '../../formats/types.js';
import type { Adapter, UpstreamCall } from '../types.js';
import { geminiErrorBody } from './formats/gemini/errors.js';

/**
 * Gemini's documented bodies (fixtures/) through the converters, both ways, with no server: an
 * OpenAI chat or embeddings caller on a Gemini channel (openai-gemini, embeddings) and a Gemini
 * caller on an OpenAI channel (gemini-openai). What a converter writes in Gemini's format is checked
 * against the @google/genai types (wire-types.ts) and read back through the SDK's response class.
 */
const gemini = adapterOf('gemini');
const openai = adapterOf('openai');
const MODEL = 'gemini-2.5-flash';
type Obj = Record<string, unknown>;

const weatherTool = { type: 'function', function: { name: 'get_current_weather', description: 'Get the current weather in a given location', parameters: { type: 'object', properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } }, required: ['location'] } } } as const;

/**
 * The adapter with its Gemini-caller stream frames ending in LF: Gemini frames end in CRLF CRLF as
 * Google sends them, and the replay's frame splitter (framesToEvents) splits on LF blank lines only.
 */
function lfFramed(adapter: Adapter): Adapter {
  const wrapped = Object.create(adapter) as Adapter;
  wrapped.streamTransformer = (call: UpstreamCall, cx: ConvertContext) => {
    const t = adapter.streamTransformer(call, cx);
    const lf = (s: string) => s.replaceAll('\r\n', '\n');
    return { ...t, writer: { ...t.writer, write: (ev, facts) => lf(t.writer.write(ev, facts)), end: (e) => lf(t.writer.end(e)), fail: (err) => lf(t.writer.fail(err)) } };
  };
  return wrapped;
}

/** The SDK's view of a JSON answer: its response class with the JSON's fields. */
const sdkResponse = (json: unknown) => Object.assign(new GenerateContentResponse(), json);

describe('OpenAI chat caller → Gemini generateContent request (openai-gemini)', () => {
  it('builds the documented request: systemInstruction, generationConfig with thinking, safety settings, function tools, AUTO', async () => {
    const call = callOf(gemini, { model: MODEL, ch: { key: 'AIza-key' } });
    const req = await builtRequest(gemini, call, {
      model: MODEL,
      max_tokens: 1024,
      temperature: 0.7,
      reasoning_effort: 'low',
      stop: ['END'],
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        { role: 'user', content: 'What is the weather like in Boston?' },
      ],
      tools: [weatherTool],
      tool_choice: 'auto',
    } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(req.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(req.headers).toEqual({ 'x-goog-api-key': 'AIza-key' });
    expect(req.body).toEqual(fixtureBody('gemini', 'generate.request'));
  });

  it('streams through :streamGenerateContent with alt=sse', async () => {
    const req = await builtRequest(gemini, callOf(gemini, { model: MODEL, stream: true }), { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    expect(req.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('builds a function-call round trip: functionCall in the model turn, functionResponse by name, a forced function as ANY', async () => {
    const req = await builtRequest(gemini, callOf(gemini, { model: MODEL }), {
      model: MODEL,
      messages: [
        { role: 'user', content: 'What is the weather like in Boston?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":14,"unit":"celsius"}' },
      ],
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_current_weather' } },
    } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(req.body).toEqual(fixtureBody('gemini', 'generate.request.function-response'));
  });
});

describe('Gemini answers → OpenAI chat (openai-gemini)', () => {
  it('reads the thought, the text and the function call; usage adds thoughts to the completion and reports cached and reasoning tokens', () => {
    const reply = gemini.convertResponse(callOf(gemini, { model: MODEL }), fixtureBody('gemini', 'generate.response'), testContext(MODEL))!;
    expect({ ...reply.body, created: 0 }).toEqual({
      id: 'chatcmpl-mJk2aOa0CY2ozrcP8rW4-QU',
      object: 'chat.completion',
      created: 0,
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          logprobs: null,
          // STOP with a function call is a tool call for OpenAI.
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Let me look that up.',
            refusal: null,
            reasoning_content: 'The user wants the current weather in Boston, so I should call get_current_weather.',
            // Gemini gives calls no id: one is made per request, candidate and call.
            tool_calls: [{ id: 'call_reqtest1_0_0', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }],
          },
        },
      ],
      // completion = candidates 42 + thoughts 148; the cached 1024 are part of the 1200 prompt tokens.
      usage: { prompt_tokens: 1200, completion_tokens: 190, total_tokens: 1390, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 148 } },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 1200, completionTokens: 190, cachedTokens: 1024, reasoningTokens: 148 });
  });

  it('gives a blocked prompt and a candidate stopped for safety as content_filter', () => {
    for (const name of ['generate.response.safety', 'generate.response.candidate-safety']) {
      const body = gemini.convertResponse(callOf(gemini, { model: MODEL }), fixtureBody('gemini', name), testContext(MODEL))!.body!;
      expect((body.choices as Obj[])[0], name).toEqual({ index: 0, logprobs: null, finish_reason: 'content_filter', message: { role: 'assistant', content: '', refusal: null } });
    }
  });

  it('turns the documented stream into chunks: role, reasoning, text, the whole call with finish_reason, the usage chunk', async () => {
    const cx = testContext(MODEL, { stream: true, clientWantsUsage: true });
    const out = await replayStream(gemini, callOf(gemini, { model: MODEL, stream: true }), cx, sseOf(providerFixture('gemini', 'generate.stream')));
    expect(out.error).toBeUndefined();
    expect(out.usage).toMatchObject({ promptTokens: 1200, completionTokens: 190, cachedTokens: 1024, reasoningTokens: 148 });
    expect(out.frames.at(-1)).toBe('[DONE]');
    const chunks = out.frames.slice(0, -1) as Obj[];
    for (const c of chunks) expect(c).toMatchObject({ id: 'chatcmpl-s1k2aNf6MKWk1MkP1Z-F4Ag', object: 'chat.completion.chunk', model: 'gemini-2.5-flash' });
    expect(chunks.map((c) => ((c.choices as Obj[])[0] ? { delta: (c.choices as Obj[])[0]!.delta, finish: (c.choices as Obj[])[0]!.finish_reason } : { usage: c.usage }))).toEqual([
      { delta: { role: 'assistant', content: '', reasoning_content: "The user asks about Boston's weather." }, finish: null },
      { delta: { content: 'Let me look' }, finish: null },
      { delta: { content: ' that up.', tool_calls: [{ index: 0, id: 'call_reqtest1_0_0', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }] }, finish: 'tool_calls' },
      { usage: { prompt_tokens: 1200, completion_tokens: 190, total_tokens: 1390, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 148 } } },
    ]);
  });

  it('ends a stream that fails mid-way with the Google error as an OpenAI error frame', async () => {
    const out = await replayStream(gemini, callOf(gemini, { model: MODEL, stream: true }), testContext(MODEL, { stream: true }), sseOf(providerFixture('gemini', 'generate.stream.error')));
    expect(out.error).toEqual({ status: 503, type: 'UNAVAILABLE', code: 'UNAVAILABLE', param: null, message: 'The model is overloaded. Please try again later.' });
    expect(out.frames.at(-1)).toEqual({ error: { message: 'The model is overloaded. Please try again later.', type: 'UNAVAILABLE', param: null, code: 'UNAVAILABLE' } });
  });
});

describe('OpenAI embeddings caller → Gemini batchEmbedContents', () => {
  const call = callOf(gemini, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'gemini-embedding-001' });

  it('embeds every input in one batch, each request naming the model', async () => {
    const req = await builtRequest(gemini, call, { model: 'gemini-embedding-001', input: ['What is the meaning of life?', 'How does the brain work?'] });
    expect(req.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(req.body).toEqual(fixtureBody('gemini', 'embeddings.request'));
  });

  it('answers the vectors in OpenAI shape; usage is counted locally (Gemini reports none)', () => {
    const cx = testContext('gemini-embedding-001', { callerBody: { input: ['What is the meaning of life?', 'How does the brain work?'] } });
    const reply = gemini.convertResponse(call, fixtureBody('gemini', 'embeddings.response'), cx)!;
    expect(reply.body).toEqual({
      object: 'list',
      model: 'gemini-embedding-001',
      data: [
        { object: 'embedding', index: 0, embedding: [0.0132, -0.0085, 0.0291, -0.0043] },
        { object: 'embedding', index: 1, embedding: [-0.0217, 0.0154, 0.0032, 0.0118] },
      ],
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
    expect(reply.usage).toBeUndefined();
  });
});

describe('Google errors, both ways', () => {
  const names = providerFixtureNames('gemini').filter((n) => n.startsWith('error.'));

  it.each(names)('%s: classified with its status, Google status and reason, and written back to a Gemini caller', (name) => {
    const fx = providerFixture('gemini', name);
    const body = fx.body as { error: { code: number; message: string; status: string; details?: Obj[] } };
    const err = classifiedFixture(gemini, 'gemini', name);
    const reason = body.error.details?.find((d) => typeof d.reason === 'string')?.reason;
    expect(err).toMatchObject({ status: fx.status, type: body.error.status, code: reason ?? body.error.status, param: null, message: body.error.message });
    // A key Google does not know (400 API_KEY_INVALID) and 403 PERMISSION_DENIED switch the channel off.
    expect(err.disablesChannel).toBe(fx.status === 403 || reason === 'API_KEY_INVALID');
    expect(err.retryable).toBe(![400, 504].includes(fx.status!));
    expect(geminiErrorBody(err)).toEqual({ error: { code: body.error.code, message: body.error.message, status: body.error.status } });
  });
});

describe('Gemini caller → OpenAI chat channel (gemini-openai)', () => {
  const OAI = 'gpt-4.1';
  const call = (stream = false) => callOf(openai, { inbound: 'gemini', model: OAI, stream });

  it('turns the documented request into OpenAI chat: system, tools with JSON Schema, tool_choice, generation settings', async () => {
    const req = await builtRequest(openai, call(), { ...fixtureBody('gemini', 'generate.request'), model: OAI });
    expect(req.body).toEqual({
      model: OAI,
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        { role: 'user', content: 'What is the weather like in Boston?' },
      ],
      max_tokens: 1024,
      temperature: 0.7,
      stop: ['END'],
      reasoning_effort: 'low',
      // AUTO is OpenAI's default: no tool_choice is sent.
      tools: [weatherTool],
    });
  });

  it('turns the function round trip into tool_calls and a tool message answering the call', async () => {
    const req = await builtRequest(openai, call(), { ...fixtureBody('gemini', 'generate.request.function-response'), model: OAI });
    expect(req.body).toEqual({
      model: OAI,
      messages: [
        { role: 'user', content: 'What is the weather like in Boston?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":14,"unit":"celsius"}' },
      ],
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_current_weather' } },
    });
  });

  const answer = {
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    object: 'chat.completion',
    created: 1741569952,
    model: 'gpt-4.1-2025-04-14',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Let me look that up.', refusal: null, annotations: [], tool_calls: [{ id: 'call_12345xyz', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA"}' } }] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 82, completion_tokens: 17, total_tokens: 99, prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 5, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } },
    service_tier: 'default',
  } satisfies OpenAI.ChatCompletion;

  it('answers an OpenAI completion as a GenerateContentResponse the @google/genai types accept', () => {
    const body = openai.convertResponse(call(), answer, testContext(OAI))!.body!;
    expect(body).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Let me look that up.' }, { functionCall: { id: 'call_12345xyz', name: 'get_current_weather', args: { location: 'Boston, MA' } } }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 82, candidatesTokenCount: 12, totalTokenCount: 99, thoughtsTokenCount: 5, cachedContentTokenCount: 64 },
      modelVersion: 'gpt-4.1-2025-04-14',
      responseId: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    });
    expect(valueTypeProblems('gemini', "import('./wire-types.js').GenerateContentResponseJSON", { answer: { value: body } })).toEqual([]);
    const sdk = sdkResponse(body);
    expect(sdk.text).toBe('Let me look that up.');
    expect(sdk.functionCalls).toEqual([{ id: 'call_12345xyz', name: 'get_current_weather', args: { location: 'Boston, MA' } }]);
  }, 60_000);

  it('streams OpenAI chunks as Gemini chunks: text as it comes, the call whole in the last chunk with finishReason and usage', async () => {
    const base = { id: 'chatcmpl-stream1', object: 'chat.completion.chunk', created: 1741569952, model: 'gpt-4.1-2025-04-14' } as const;
    const chunks: OpenAI.ChatCompletionChunk[] = [
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: 'Let me look' }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: ' that up.' }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_12345xyz', type: 'function', function: { name: 'get_current_weather', arguments: '' } }] }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"location":"Boston, MA"}' } }] }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }] },
      { ...base, choices: [], usage: { prompt_tokens: 82, completion_tokens: 17, total_tokens: 99 } },
    ];
    const sse = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
    const out = await replayStream(lfFramed(openai), call(true), testContext(OAI, { stream: true }), sse);
    expect(out.error).toBeUndefined();
    const head = { modelVersion: 'gpt-4.1-2025-04-14', responseId: 'chatcmpl-stream1' };
    expect(out.frames).toEqual([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Let me look' }] }, index: 0 }], ...head },
      { candidates: [{ content: { role: 'model', parts: [{ text: ' that up.' }] }, index: 0 }], ...head },
      {
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'call_12345xyz', name: 'get_current_weather', args: { location: 'Boston, MA' } } }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 82, candidatesTokenCount: 17, totalTokenCount: 99 },
        ...head,
      },
    ]);
    expect(valueTypeProblems('gemini', "import('./wire-types.js').GenerateContentResponseJSON", { stream: { kind: 'stream', value: out.frames } })).toEqual([]);
    const sdk = out.frames.map(sdkResponse);
    expect(sdk.map((r) => r.text ?? '').join('')).toBe('Let me look that up.');
    expect(sdk.at(-1)!.functionCalls).toEqual([{ id: 'call_12345xyz', name: 'get_current_weather', args: { location: 'Boston, MA' } }]);
  }, 60_000);

  it('the documented stream and answer fixtures read through the SDK class as the documented text and call', () => {
    const answerSdk = sdkResponse(fixtureBody('gemini', 'generate.response'));
    expect(answerSdk.text).toBe('Let me look that up.');
    expect(answerSdk.functionCalls).toEqual([{ name: 'get_current_weather', args: { location: 'Boston, MA' } }]);
    const stream = (providerFixture('gemini', 'generate.stream').events as Obj[]).map(sdkResponse);
    expect(stream.map((r) => r.text ?? '').join('')).toBe('Let me look that up.');
  });

  it('tells an OpenAI error to a Gemini caller in Google shape', () => {
    const rate = openai.classifyError(429, 429, JSON.stringify({ error: { message: 'Rate limit reached for gpt-4.1', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
    expect(geminiErrorBody(rate)).toEqual({ error: { code: 429, message: 'Rate limit reached for gpt-4.1', status: 'RESOURCE_EXHAUSTED' } });
  });
});
