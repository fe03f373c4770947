import { bedrockDocumentedErrors, bedrockEventStream, providerFixture, sigV4Signature } from '@modelgate/testkit';
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { adapterOf, builtRequest, callOf, fixtureBody, replayStream } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
import type { Adapter, StreamTransformer } from '../types.js';

/**
 * Bedrock's documented bodies (fixtures/) through the adapter, with no server: the InvokeModel
 * request an OpenAI chat caller becomes (path, signed headers, body), the answer and the binary
 * event stream read back as OpenAI chat, and each documented exception classified.
 */
const bedrock = adapterOf('bedrock');
const MODEL = 'claude-3-5-sonnet-20241022';
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const KEY = `AKIDEXAMPLE|${SECRET}|us-east-1`;
/** us-east-1 serves this model through the `us.` cross-region inference profile; `:` is encoded once in the path. */
const PATH = '/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0';
type Obj = Record<string, unknown>;

const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Get the current weather in a city', parameters: (fixtureBody('bedrock', 'invoke.request').tools as Obj[])[0]!.input_schema as Obj } },
];
const callerBody = {
  model: MODEL,
  max_tokens: 1024,
  temperature: 0.2,
  stop: ['###'],
  user: 'user-42',
  messages: [
    { role: 'system', content: 'You are a weather assistant.' },
    { role: 'user', content: 'What is the weather like in Seattle?' },
  ],
  tools,
  tool_choice: 'auto',
} satisfies OpenAI.ChatCompletionCreateParamsNonStreaming;

async function* pieces(buf: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/**
 * `replayStream` feeds text, and Bedrock's stream is binary: this adapter reads `frames` (split
 * across reads inside preludes and payloads) in place of the bytes it is given, and is otherwise
 * the Bedrock adapter.
 */
function readingFrames(frames: Buffer): Adapter {
  return Object.assign(Object.create(bedrock) as Adapter, {
    streamTransformer: (call: Parameters<Adapter['streamTransformer']>[0], cx: Parameters<Adapter['streamTransformer']>[1]): StreamTransformer => {
      const t = bedrock.streamTransformer(call, cx);
      return { ...t, events: () => t.events(pieces(frames, 7)) };
    },
  });
}

describe('OpenAI chat caller → Bedrock InvokeModel request', () => {
  // A fixed clock makes the signature a constant the fake's independent SigV4 code can recompute.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2024, 0, 1));
  });
  afterEach(() => vi.useRealTimers());

  it('builds the documented body on the inference profile path, signed as service bedrock', async () => {
    const req = await builtRequest(bedrock, callOf(bedrock, { model: MODEL, ch: { key: KEY } }), callerBody);
    expect(req.url).toBe(`https://bedrock-runtime.us-east-1.amazonaws.com${PATH}/invoke`);
    expect(req.body).toEqual(fixtureBody('bedrock', 'invoke.request'));
    const payloadHash = createHash('sha256').update(JSON.stringify(req.body)).digest('hex');
    const signedHeaders = ['accept', 'content-type', 'host', 'x-amz-content-sha256', 'x-amz-date'];
    const signature = sigV4Signature({
      method: 'POST',
      rawPath: `${PATH}/invoke`,
      query: new URLSearchParams(),
      headers: { ...req.headers, host: 'bedrock-runtime.us-east-1.amazonaws.com' },
      signedHeaders,
      payloadHash,
      amzDate: '20240101T000000Z',
      region: 'us-east-1',
      service: 'bedrock',
      secretAccessKey: SECRET,
    });
    expect(req.headers).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      'x-amz-date': '20240101T000000Z',
      'x-amz-content-sha256': payloadHash,
      authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/bedrock/aws4_request, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`,
    });
  });

  it('streams on invoke-with-response-stream: the same body (no stream field), event-stream accepted', async () => {
    const req = await builtRequest(bedrock, callOf(bedrock, { model: MODEL, stream: true, ch: { key: KEY } }), { ...callerBody, stream: true });
    expect(req.url).toBe(`https://bedrock-runtime.us-east-1.amazonaws.com${PATH}/invoke-with-response-stream`);
    expect(req.body).toEqual(fixtureBody('bedrock', 'invoke.request'));
    expect(req.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-accept': 'application/json' });
    expect(req.headers.authorization).toContain('SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amzn-bedrock-accept,');
  });

  it('builds the tool round trip: assistant tool_calls → text and tool_use blocks, the tool message → a tool_result turn', async () => {
    const req = await builtRequest(bedrock, callOf(bedrock, { model: MODEL, ch: { key: KEY } }), {
      model: MODEL,
      max_tokens: 1024,
      messages: [
        ...callerBody.messages,
        { role: 'assistant', content: 'Let me look up the current weather in Seattle.', tool_calls: [{ id: 'toolu_bdrk_01Dk4QmS8vZtJ2wXyN6pRb7E', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Seattle"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_bdrk_01Dk4QmS8vZtJ2wXyN6pRb7E', content: '12 degrees Celsius, light rain' },
      ],
      tools,
    } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(req.body).toEqual(fixtureBody('bedrock', 'invoke.request.tool-result'));
  });

  it('an Anthropic caller: its body without model, anthropic-beta moved into the body', async () => {
    const { anthropic_version: _v, ...messages } = fixtureBody('bedrock', 'invoke.request');
    const call = { ...callOf(bedrock, { model: MODEL, inbound: 'anthropic-messages', ch: { key: KEY } }), clientHeaders: { 'anthropic-beta': 'token-efficient-tools-2025-02-19' } };
    const req = await builtRequest(bedrock, call, { ...messages, model: MODEL });
    expect(req.body).toEqual({ ...fixtureBody('bedrock', 'invoke.request'), anthropic_beta: ['token-efficient-tools-2025-02-19'] });
  });
});

describe('Bedrock answers → OpenAI chat', () => {
  it('reads text and tool_use; the prompt counts cache reads and writes', () => {
    const reply = bedrock.convertResponse(callOf(bedrock, { model: MODEL }), fixtureBody('bedrock', 'invoke.response'), testContext(MODEL))!;
    expect({ ...reply.body, created: 0 }).toEqual({
      id: 'msg_bdrk_01UvWq3nRkzY7pS1aGh4Lm2X',
      object: 'chat.completion',
      created: 0,
      model: MODEL,
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Let me look up the current weather in Seattle.',
            refusal: null,
            tool_calls: [{ id: 'toolu_bdrk_01Dk4QmS8vZtJ2wXyN6pRb7E', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Seattle"}' } }],
          },
        },
      ],
      // 31 uncached + 1536 read + 412 written.
      usage: { prompt_tokens: 1979, completion_tokens: 58, total_tokens: 2037, prompt_tokens_details: { cached_tokens: 1536, cache_creation_tokens: 412 } },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 1979, completionTokens: 58, cachedTokens: 1536, cacheWriteTokens: 412 });
  });

  it('maps max_tokens to finish_reason length', () => {
    const body = bedrock.convertResponse(callOf(bedrock, { model: MODEL }), fixtureBody('bedrock', 'invoke.response.text'), testContext(MODEL))!.body!;
    expect((body.choices as Obj[])[0]).toEqual({ index: 0, logprobs: null, finish_reason: 'length', message: { role: 'assistant', content: 'Seattle is usually mild and', refusal: null } });
    expect(body.usage).toEqual({ prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 });
  });

  it('turns the framed event stream into chunks: role, text, one tool call with its fragments, finish, usage with cache counts', async () => {
    const call = callOf(bedrock, { model: MODEL, stream: true });
    const cx = testContext(MODEL, { stream: true, clientWantsUsage: true });
    const out = await replayStream(readingFrames(bedrockEventStream(providerFixture('bedrock', 'invoke-stream'))), call, cx, '');
    expect(out.error).toBeUndefined();
    expect(out.usageFinal).toBe(true);
    expect(out.usage).toMatchObject({ promptTokens: 1979, completionTokens: 54, cachedTokens: 1536, cacheWriteTokens: 412 });
    expect(out.text).toContain('Let me look up the weather.');
    expect(out.frames.at(-1)).toBe('[DONE]');
    const chunks = out.frames.slice(0, -1) as Obj[];
    for (const c of chunks) expect(c).toMatchObject({ id: 'msg_bdrk_01Qe8yFv2Jm6Tn4Kc9WsXh1B', object: 'chat.completion.chunk', model: MODEL });
    const deltas = chunks.map((c) => ((c.choices as Obj[])[0] ? { delta: (c.choices as Obj[])[0]!.delta, finish: (c.choices as Obj[])[0]!.finish_reason } : { usage: c.usage }));
    expect(deltas).toEqual([
      { delta: { role: 'assistant', content: '' }, finish: null },
      { delta: { content: 'Let me look up' }, finish: null },
      { delta: { content: ' the weather.' }, finish: null },
      { delta: { tool_calls: [{ index: 0, id: 'toolu_bdrk_01Mr7ZcX3pLw9Ye2Gt5HvQ8D', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"city": "Sea' } }] }, finish: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: 'ttle"}' } }] }, finish: null },
      { delta: {}, finish: 'tool_calls' },
      { usage: { prompt_tokens: 1979, completion_tokens: 54, total_tokens: 2033, prompt_tokens_details: { cached_tokens: 1536, cache_creation_tokens: 412 } } },
    ]);
  });

  it('ends a stream that an exception message interrupts with an OpenAI error frame naming the exception', async () => {
    const call = callOf(bedrock, { model: MODEL, stream: true });
    const out = await replayStream(readingFrames(bedrockEventStream(providerFixture('bedrock', 'invoke-stream.exception'))), call, testContext(MODEL, { stream: true }), '');
    expect(out.text).toBe('Hello');
    expect(out.error).toMatchObject({ status: 429, type: 'rate_limit_error', message: 'throttlingException: Too many requests, please wait before trying again.' });
    expect(out.frames.at(-1)).toMatchObject({ error: { message: 'throttlingException: Too many requests, please wait before trying again.', type: 'rate_limit_error' } });
  });

  it('a modelStreamErrorException (a name the adapter maps to no Anthropic type) ends the stream as an api_error', async () => {
    const call = callOf(bedrock, { model: MODEL, stream: true });
    const out = await replayStream(readingFrames(bedrockEventStream(providerFixture('bedrock', 'invoke-stream.model-stream-error'))), call, testContext(MODEL, { stream: true }), '');
    const message = 'modelStreamErrorException: The model stream was interrupted. Retry your request.';
    expect(out.error).toMatchObject({ status: 500, type: 'api_error', message });
    expect(out.frames.at(-1)).toMatchObject({ error: { message, type: 'api_error' } });
  });
});

describe('Bedrock errors', () => {
  const documented = bedrockDocumentedErrors();
  /** The `x-amzn-ErrorType` value each fixture's note starts with. */
  const errorType = (name: string) => /^x-amzn-ErrorType: (\S+)/.exec(providerFixture('bedrock', name).note ?? '')![1]!;

  it('has a fixture for every exception InvokeModel documents, and the credential ones', () => {
    expect(documented.map((e) => `${e.status} ${e.exception}`).sort()).toEqual([
      '400 ServiceQuotaExceededException',
      '400 ValidationException',
      '403 AccessDeniedException',
      '403 ExpiredTokenException',
      '403 InvalidSignatureException',
      '403 UnrecognizedClientException',
      '404 ResourceNotFoundException',
      '408 ModelTimeoutException',
      '424 ModelErrorException',
      '429 ModelNotReadyException',
      '429 ThrottlingException',
      '500 InternalServerException',
      '503 ServiceUnavailableException',
    ]);
  });

  it.each(documented.map((e) => [e.name, e] as const))('%s: classified with its status, the exception named in code and message', (name, e) => {
    const err = bedrock.classifyError(e.status, e.status, JSON.stringify(e.body), { 'x-amzn-errortype': errorType(name) });
    expect(err).toMatchObject({ status: e.status, code: e.exception, param: null, message: `${e.exception}: ${e.body.message}` });
    // Every 403 means the key is dead or lacks the model grant: the channel is switched off. Nothing else does.
    expect(err.disablesChannel).toBe(e.status === 403);
    // The reference's retry table: a 400 and a 408 are not retried (the same body fails again); the rest are.
    expect(err.retryable).toBe(e.status !== 400 && e.status !== 408);
  });

  it('without the header (a proxy dropped it), the status and message still classify the error', () => {
    const e = documented.find((d) => d.exception === 'ThrottlingException')!;
    expect(bedrock.classifyError(429, 429, JSON.stringify(e.body))).toMatchObject({ status: 429, type: 'rate_limit_error', code: null, message: e.body.message, retryable: true, disablesChannel: false });
  });
});
