import type { Usage } from '@modelgate/shared';
import { providerFixture, providerFixtureNames } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import type { Adapter, UpstreamCall } from '../adapters/types.js';
import { framesToEvents } from '../formats/compose.js';
import { openAIReader, withChunkUsageNull, withMessageRefusal } from '../formats/openai-chat/stream.js';
import { responsesOpenAI } from '../formats/responses-openai/index.js';
import type { ConvertContext, WireFormat } from '../formats/types.js';
import { adapterOf, callOf, replayStream, sseOf } from '../../test-support/adapter-replay.js';
import { testContext } from '../../test-support/convert-fixtures.js';
import { assertAllConform, assertConforms, openapiAvailable, openapiSkipReason } from '../../test-support/openapi-contract.js';

/**
 * Every converter that writes OpenAI format, driven on documented upstream answers and streams, its
 * output validated against OpenAI's published OpenAPI schema: each chunk / event, and the whole.
 * The chat caller's stream goes through `withChunkUsageNull` as relay-attempt.ts sends it.
 */
if (!openapiAvailable) console.warn(`converters.conformance skipped: ${openapiSkipReason}`);
const suite = describe.skipIf(!openapiAvailable);

const usage: Usage = { promptTokens: 12, completionTokens: 7, cachedTokens: 4, cacheWriteTokens: 2, reasoningTokens: 3 } as Usage;
type Body = Record<string, unknown>;

/** The adapter with the caller-facing stream completion relay-attempt.ts applies. */
function asRelayed(adapter: Adapter): Adapter {
  const wrapped = Object.create(adapter) as Adapter;
  wrapped.streamTransformer = (call: UpstreamCall, cx: ConvertContext) => {
    const t = adapter.streamTransformer(call, cx);
    return call.inbound === 'openai-chat' ? { ...t, writer: withChunkUsageNull(t.writer, cx) } : t;
  };
  return wrapped;
}

// Upstream answers as the providers document them (reference/providers-international.md §1, §2).
const anthropicMessage: Body = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
  content: [{ type: 'thinking', thinking: 'Short.', signature: 'sig' }, { type: 'text', text: 'Hello!' }, { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }],
  stop_reason: 'tool_use', stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 4, cache_creation_input_tokens: 2 },
};
const anthropicStream: Body[] = [
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hello' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: ' there' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {} } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
  { type: 'content_block_stop', index: 2 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 7 } },
  { type: 'message_stop' },
];
const anthropicNames = anthropicStream.map((e) => String(e.type));
const geminiAnswer: Body = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'Thinking…', thought: true }, { text: 'Hello!' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 22, thoughtsTokenCount: 3, cachedContentTokenCount: 4 },
  modelVersion: 'gemini-2.5-flash', responseId: 'resp-1',
};
const geminiStream: Body[] = [
  { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }], modelVersion: 'gemini-2.5-flash', responseId: 'r1' },
  { candidates: [{ content: { role: 'model', parts: [{ text: 'lo!' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19 }, modelVersion: 'gemini-2.5-flash', responseId: 'r1' },
];

interface Case {
  slug: string;
  model: string;
  answer: () => Body;
  stream: () => string;
}
const cases: Case[] = [
  { slug: 'anthropic', model: 'claude-sonnet-4-5', answer: () => anthropicMessage, stream: () => anthropicStream.map((e, i) => `event: ${anthropicNames[i]}\ndata: ${JSON.stringify(e)}\n\n`).join('') },
  { slug: 'gemini', model: 'gemini-2.5-flash', answer: () => geminiAnswer, stream: () => geminiStream.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') },
  { slug: 'cohere', model: 'command-a-03-2025', answer: () => providerFixture('cohere', 'chat.response.tool-call').body as Body, stream: () => sseOf(providerFixture('cohere', 'chat.stream.tool-call')) },
];

function converted(c: Case, inbound: WireFormat, cx: ConvertContext): Body {
  const adapter = adapterOf(c.slug);
  const body = adapter.convertResponse(callOf(adapter, { model: c.model, inbound, mode: 'chat' }), c.answer(), cx)!.body!;
  return inbound === 'openai-chat' ? withMessageRefusal(body) : body;
}

async function streamed(c: Case, inbound: WireFormat, cx: ConvertContext): Promise<unknown[]> {
  const adapter = asRelayed(adapterOf(c.slug));
  const replay = await replayStream(adapter, callOf(adapter, { model: c.model, inbound, stream: true }), cx, c.stream(), usage);
  expect(replay.error).toBeUndefined();
  return replay.frames.filter((f) => f !== '[DONE]');
}

suite.each(cases)('$slug → OpenAI formats conform to the OpenAPI schema', (c) => {
  const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
  const responsesBody = { model: c.model, input: 'Weather in Paris?', tools };

  it('chat completion: refusal null, usage, tool calls', () => {
    const body = converted(c, 'openai-chat', testContext(c.model));
    assertConforms('CreateChatCompletionResponse', body);
    expect((body.choices as Body[])[0]!.message).toMatchObject({ role: 'assistant', refusal: null });
  });

  it('chat stream with include_usage: usage null on every chunk before the usage chunk', async () => {
    const frames = (await streamed(c, 'openai-chat', testContext(c.model, { stream: true, clientWantsUsage: true }))) as Body[];
    assertAllConform('CreateChatCompletionStreamResponse', frames);
    const last = frames.at(-1)!;
    expect(last.choices).toEqual([]);
    const u = last.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    expect(u.prompt_tokens).toBeGreaterThan(0);
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
    for (const f of frames.slice(0, -1)) expect(f.usage).toBeNull();
  });

  it('Responses answer: logprobs on output_text, cache_write_tokens in usage', () => {
    const body = converted(c, 'openai-responses', testContext(c.model, { callerBody: responsesBody }));
    assertConforms('Response', body);
    const u = body.usage as { input_tokens_details: Body };
    expect(Object.keys(u.input_tokens_details).sort()).toEqual(['cache_write_tokens', 'cached_tokens']);
  });

  it('Responses stream: every event, and the final response', async () => {
    const frames = (await streamed(c, 'openai-responses', testContext(c.model, { stream: true, callerBody: responsesBody }))) as Body[];
    assertAllConform('ResponseStreamEvent', frames);
    const done = frames.find((f) => f.type === 'response.output_text.done');
    if (done || c.slug !== 'cohere') expect(done?.logprobs).toEqual([]);
    const args = frames.find((f) => f.type === 'response.function_call_arguments.done');
    if (args) expect(args.name).toBe('get_weather');
    const final = frames.at(-1)!;
    expect(final.type).toBe('response.completed');
    assertConforms('Response', final.response, 'response.completed.response');
    const u = (final.response as Body).usage as { input_tokens_details: Body };
    expect(Object.keys(u.input_tokens_details).sort()).toEqual(['cache_write_tokens', 'cached_tokens']);
  });
});

suite('OpenAI chat upstream → Responses caller (formats/responses-openai)', () => {
  const chunks: Body[] = [
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o', choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }] },
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, logprobs: null, finish_reason: null }] },
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o', choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }] },
  ];
  const callerBody = { model: 'gpt-4o', input: 'Weather?', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }] };

  it('streams conforming events with name on function_call_arguments.done', () => {
    const cx = testContext('gpt-4o', { stream: true, callerBody });
    const writer = responsesOpenAI.stream(cx);
    const reader = openAIReader();
    let sse = '';
    for (const c of chunks) {
      const ev = { event: undefined, data: JSON.stringify(c) };
      sse += writer.write(ev, reader.read(ev));
    }
    sse += writer.end({ usage, reported: true });
    const frames = framesToEvents(sse).map((e) => JSON.parse(e.data) as Body);
    assertAllConform('ResponseStreamEvent', frames);
    expect(frames.find((f) => f.type === 'response.function_call_arguments.done')).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(frames.find((f) => f.type === 'response.output_text.done')).toMatchObject({ text: 'Hi', logprobs: [] });
    expect((frames.at(-1)!.response as Body).usage).toEqual({ input_tokens: 12, input_tokens_details: { cached_tokens: 4, cache_write_tokens: 2 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 19 });
  });

  it('answers a conforming Response for a chat completion', () => {
    const chat = { id: 'chatcmpl-2', object: 'chat.completion', created: 1700000000, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } };
    assertConforms('CreateChatCompletionResponse', chat, 'input');
    assertConforms('Response', responsesOpenAI.response(chat, testContext('gpt-4o', { callerBody })));
  });
});

suite('recorded provider fixtures of OpenAI-format answers', () => {
  it('the openai folder fixtures (when present) satisfy the schema of their kind', () => {
    const names = providerFixtureNames('openai');
    for (const name of names) {
      const fx = providerFixture('openai', name);
      if (fx.kind === 'error') assertConforms('ErrorResponse', fx.body, name);
    }
    expect(Array.isArray(names)).toBe(true);
  });
});
