import Anthropic from '@anthropic-ai/sdk';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { Stream } from '@anthropic-ai/sdk/streaming';
import { providerFixture, providerFixtureNames } from '@modelgate/testkit';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
import { anthropicErrorBody } from './formats/anthropic-messages/errors.js';

/**
 * Anthropic's documented bodies (fixtures/) through the converters, both ways, with no server:
 * an OpenAI chat caller on an Anthropic channel (openai-anthropic) and an Anthropic Messages caller
 * on an OpenAI channel (anthropic-openai). What a converter writes in Anthropic's format is read
 * back by the Anthropic SDK's own SSE parser and message accumulator.
 */
const anthropic = adapterOf('anthropic');
const openai = adapterOf('openai');
const MODEL = 'claude-sonnet-4-5';
type Obj = Record<string, unknown>;

/** The text of `events` as Anthropic sends it: `event: <type>` + `data: <json>` per event. */
const anthropicSse = (events: unknown[]) => events.map((e) => `event: ${(e as Obj).type as string}\ndata: ${JSON.stringify(e)}\n\n`).join('');

/** The message the Anthropic SDK accumulates from an SSE body (its own parser and MessageStream). */
async function sdkFinalMessage(sse: string): Promise<Anthropic.Messages.Message> {
  const parsed = Stream.fromSSEResponse<Anthropic.Messages.RawMessageStreamEvent>(new Response(sse), new AbortController());
  return MessageStream.fromReadableStream(parsed.toReadableStream()).finalMessage();
}

describe('OpenAI chat caller → Anthropic Messages request (openai-anthropic)', () => {
  it('builds the documented request: system, tools, thinking from reasoning_effort, cache breakpoints, metadata.user_id', async () => {
    const call = callOf(anthropic, { model: MODEL, ch: { key: 'sk-ant-key', baseUrl: 'https://api.anthropic.com/' } });
    const req = await builtRequest(anthropic, call, {
      model: MODEL,
      max_tokens: 2048,
      reasoning_effort: 'low',
      user: 'user-42',
      prompt_cache_key: 'weather-bot',
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        { role: 'user', content: 'What is the weather like in San Francisco?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Get the current weather in a given location', parameters: (fixtureBody('anthropic', 'messages.request.tool-result').tools as Obj[])[0]!.input_schema as Obj } }],
      tool_choice: 'auto',
    } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(req.url).toBe('https://api.anthropic.com/v1/messages');
    expect(req.headers).toEqual({ 'x-api-key': 'sk-ant-key', 'anthropic-version': '2023-06-01' });
    expect(req.body).toEqual(fixtureBody('anthropic', 'messages.request'));
  });

  it('builds a tool round trip: the assistant tool_use, the tool result, stop → stop_sequences, parallel_tool_calls:false', async () => {
    const req = await builtRequest(anthropic, callOf(anthropic, { model: MODEL }), {
      model: MODEL,
      max_tokens: 1024,
      stop: '###',
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        { role: 'user', content: 'What is the weather like in San Francisco?' },
        { role: 'assistant', content: "I'll check the current weather in San Francisco.", tool_calls: [{ id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees, partly cloudy' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Get the current weather in a given location', parameters: (fixtureBody('anthropic', 'messages.request.tool-result').tools as Obj[])[0]!.input_schema as Obj } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(req.body).toEqual(fixtureBody('anthropic', 'messages.request.tool-result'));
  });
});

describe('Anthropic answers → OpenAI chat (openai-anthropic)', () => {
  it('reads thinking, text and tool_use; usage counts cache reads and writes into the prompt and thinking as reasoning', () => {
    const reply = anthropic.convertResponse(callOf(anthropic, { model: MODEL }), fixtureBody('anthropic', 'messages.response'), testContext(MODEL))!;
    const body = reply.body!;
    expect({ ...body, created: 0 }).toEqual({
      id: 'msg_01Aq9w938a90dw8q',
      object: 'chat.completion',
      created: 0,
      model: 'claude-sonnet-4-5-20250929',
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: "I'll check the current weather in San Francisco.",
            refusal: null,
            reasoning_content: 'The user wants the weather in San Francisco. I should call get_weather with location San Francisco, CA.',
            tool_calls: [{ id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }],
          },
        },
      ],
      // The prompt is the uncached input plus cache reads and writes: 22 + 1800 + 236.
      usage: { prompt_tokens: 2058, completion_tokens: 151, total_tokens: 2209, prompt_tokens_details: { cached_tokens: 1800, cache_creation_tokens: 236 }, completion_tokens_details: { reasoning_tokens: 64 } },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 2058, completionTokens: 151, cachedTokens: 1800, cacheWriteTokens: 236, reasoningTokens: 64 });
  });

  it('maps max_tokens to finish_reason length', () => {
    const body = anthropic.convertResponse(callOf(anthropic, { model: MODEL }), fixtureBody('anthropic', 'messages.response.text'), testContext(MODEL))!.body!;
    expect((body.choices as Obj[])[0]).toEqual({ index: 0, logprobs: null, finish_reason: 'length', message: { role: 'assistant', content: 'Hi! My name is Claude.', refusal: null } });
    expect(body.usage).toEqual({ prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 });
  });

  it('turns the documented stream into chunks: role, reasoning, text, one tool call with its argument fragments, finish, usage', async () => {
    const call = callOf(anthropic, { model: MODEL, stream: true });
    const cx = testContext(MODEL, { stream: true, clientWantsUsage: true });
    const out = await replayStream(anthropic, call, cx, sseOf(providerFixture('anthropic', 'messages.stream')));
    expect(out.error).toBeUndefined();
    expect(out.usageFinal).toBe(true);
    expect(out.usage).toMatchObject({ promptTokens: 2058, completionTokens: 89, cachedTokens: 1800, cacheWriteTokens: 236, reasoningTokens: 31 });
    const chunks = out.frames.slice(0, -1) as Obj[];
    expect(out.frames.at(-1)).toBe('[DONE]');
    for (const c of chunks) expect(c).toMatchObject({ id: 'msg_014p7gG3wDgGV9EUtLvnow3U', object: 'chat.completion.chunk', model: 'claude-sonnet-4-5-20250929' });
    const deltas = chunks.map((c) => ((c.choices as Obj[])[0] ? { delta: (c.choices as Obj[])[0]!.delta, finish: (c.choices as Obj[])[0]!.finish_reason } : { usage: c.usage }));
    expect(deltas).toEqual([
      { delta: { role: 'assistant', content: '' }, finish: null },
      { delta: { reasoning_content: 'The user wants the weather in San Francisco.' }, finish: null },
      { delta: { reasoning_content: ' I should call get_weather.' }, finish: null },
      { delta: { content: "I'll check the" }, finish: null },
      { delta: { content: ' weather.' }, finish: null },
      { delta: { tool_calls: [{ index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"location": "San Fra' } }] }, finish: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: 'ncisco, CA"}' } }] }, finish: null },
      { delta: {}, finish: 'tool_calls' },
      { usage: { prompt_tokens: 2058, completion_tokens: 89, total_tokens: 2147, prompt_tokens_details: { cached_tokens: 1800, cache_creation_tokens: 236 }, completion_tokens_details: { reasoning_tokens: 31 } } },
    ]);
  });

  it('ends a stream that fails mid-way with an OpenAI error frame carrying the overloaded error', async () => {
    const call = callOf(anthropic, { model: MODEL, stream: true });
    const out = await replayStream(anthropic, call, testContext(MODEL, { stream: true }), sseOf(providerFixture('anthropic', 'messages.stream.error')));
    expect(out.error).toEqual({ status: 529, type: 'overloaded_error', code: 'overloaded_error', param: null, message: 'Overloaded' });
    expect(out.frames.at(-1)).toEqual({ error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: 'overloaded_error' } });
    expect(out.text).toBe('Hello');
  });
});

describe('Anthropic errors, both ways', () => {
  const names = providerFixtureNames('anthropic').filter((n) => n.startsWith('error.'));

  it('has a fixture for every documented error type', () => {
    expect(names.map((n) => (providerFixture('anthropic', n).body as { error: { type: string } }).error.type).sort()).toEqual(
      ['api_error', 'authentication_error', 'billing_error', 'invalid_request_error', 'not_found_error', 'overloaded_error', 'permission_error', 'rate_limit_error', 'request_too_large', 'timeout_error'],
    );
  });

  it.each(names)('%s: classified with its status, type and message, and written back to an Anthropic caller as it came', (name) => {
    const fx = providerFixture('anthropic', name);
    const body = fx.body as { error: { type: string; message: string }; request_id: string };
    const err = classifiedFixture(anthropic, 'anthropic', name);
    expect(err).toMatchObject({ status: fx.status, type: body.error.type, code: body.error.type, param: null, message: body.error.message });
    // The reference's retry table: every status but 504 (a gateway timeout may have run the request); 400 too on Anthropic channels.
    expect(err.retryable).toBe(fx.status !== 504);
    // Dead credentials switch the channel off: a 401, or a key without permission.
    expect(err.disablesChannel).toBe(['authentication_error', 'permission_error'].includes(body.error.type));
    const { request_id: _id, ...withoutId } = body;
    expect(anthropicErrorBody(err)).toEqual(withoutId);
  });
});

describe('Anthropic Messages caller → OpenAI chat channel (anthropic-openai)', () => {
  const OAI = 'gpt-4.1';

  it('turns the tool round trip into OpenAI messages: system, assistant tool_calls, tool result; parallel off', async () => {
    const call = callOf(openai, { inbound: 'anthropic-messages', model: OAI });
    const req = await builtRequest(openai, call, { ...fixtureBody('anthropic', 'messages.request.tool-result'), model: OAI });
    expect(req.body).toEqual({
      model: OAI,
      max_tokens: 1024,
      stop: ['###'],
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        { role: 'user', content: 'What is the weather like in San Francisco?' },
        { role: 'assistant', content: "I'll check the current weather in San Francisco.", tool_calls: [{ id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees, partly cloudy' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Get the current weather in a given location', parameters: (fixtureBody('anthropic', 'messages.request.tool-result').tools as Obj[])[0]!.input_schema } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
  });

  it('turns thinking into reasoning_effort and metadata.user_id into user; cache markers are left out with a note', async () => {
    const call = callOf(openai, { inbound: 'anthropic-messages', model: 'o4-mini' });
    const cx = testContext('o4-mini');
    const req = await builtRequest(openai, call, { ...fixtureBody('anthropic', 'messages.request'), model: 'o4-mini' }, cx);
    expect(req.body).toEqual({
      model: 'o4-mini',
      max_completion_tokens: 2048,
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        // A block list stays a part list (the cache marker on it left out).
        { role: 'user', content: [{ type: 'text', text: 'What is the weather like in San Francisco?' }] },
      ],
      user: 'user-42',
      reasoning_effort: 'low',
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Get the current weather in a given location', parameters: (fixtureBody('anthropic', 'messages.request.tool-result').tools as Obj[])[0]!.input_schema } }],
      tool_choice: 'auto',
    });
    expect(cx.dropped).toEqual(['cache_control']);
  });

  const answer = {
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    object: 'chat.completion',
    created: 1741569952,
    model: 'gpt-4.1-2025-04-14',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: "I'll check the weather.", refusal: null, annotations: [], tool_calls: [{ id: 'call_12345xyz', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 82, completion_tokens: 17, total_tokens: 99, prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } },
    service_tier: 'default',
  } satisfies OpenAI.ChatCompletion;

  it('answers an OpenAI completion as a Messages reply: text, tool_use, stop_reason tool_use, uncached input', () => {
    const reply = openai.convertResponse(callOf(openai, { inbound: 'anthropic-messages', model: OAI }), answer, testContext(OAI))!;
    expect(reply.body).toEqual({
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4.1-2025-04-14',
      content: [
        { type: 'text', text: "I'll check the weather." },
        { type: 'tool_use', id: 'call_12345xyz', name: 'get_weather', input: { location: 'San Francisco, CA' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 18, output_tokens: 17, cache_read_input_tokens: 64, cache_creation_input_tokens: 0 },
    });
  });

  it('streams OpenAI chunks as Anthropic events the Anthropic SDK accumulates into the same message', async () => {
    const base = { id: 'chatcmpl-stream1', object: 'chat.completion.chunk', created: 1741569952, model: 'gpt-4.1-2025-04-14' } as const;
    const chunks: OpenAI.ChatCompletionChunk[] = [
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: "I'll check" }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: ' the weather.' }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_12345xyz', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"San Francisco, CA"}' } }] }, logprobs: null, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }] },
      { ...base, choices: [], usage: { prompt_tokens: 82, completion_tokens: 17, total_tokens: 99, prompt_tokens_details: { cached_tokens: 64 } } },
    ];
    const sse = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
    const call = callOf(openai, { inbound: 'anthropic-messages', model: OAI, stream: true });
    const out = await replayStream(openai, call, testContext(OAI, { stream: true }), sse);
    expect(out.error).toBeUndefined();
    const events = out.frames as Obj[];
    expect(events.map((e) => e.type)).toEqual([
      'message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop',
    ]);
    expect(events[9]).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 18, output_tokens: 17, cache_read_input_tokens: 64, cache_creation_input_tokens: 0 } });

    const message = await sdkFinalMessage(anthropicSse(events));
    expect(message).toMatchObject({
      id: 'chatcmpl-stream1',
      role: 'assistant',
      model: 'gpt-4.1-2025-04-14',
      content: [
        { type: 'text', text: "I'll check the weather." },
        { type: 'tool_use', id: 'call_12345xyz', name: 'get_weather', input: { location: 'San Francisco, CA' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 18, output_tokens: 17, cache_read_input_tokens: 64, cache_creation_input_tokens: 0 },
    });
  });

  it('the Anthropic SDK reads the documented stream fixture to the documented message', async () => {
    const message = await sdkFinalMessage(sseOf(providerFixture('anthropic', 'messages.stream')));
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants the weather in San Francisco. I should call get_weather.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'text', text: "I'll check the weather.", citations: null },
      { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: { location: 'San Francisco, CA' }, caller: { type: 'direct' } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 22, cache_read_input_tokens: 1800, cache_creation_input_tokens: 236, output_tokens: 89 });
  });

  it('tells an OpenAI error to an Anthropic caller in Anthropic shape, mid-stream as an error event', async () => {
    const rate = openai.classifyError(429, 429, JSON.stringify({ error: { message: 'Rate limit reached for gpt-4.1', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
    expect(anthropicErrorBody(rate)).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit reached for gpt-4.1' } });
    const sse = `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } })}\n\n`;
    const out = await replayStream(openai, callOf(openai, { inbound: 'anthropic-messages', model: OAI, stream: true }), testContext(OAI, { stream: true }), sse);
    expect(out.frames.at(-1)).toEqual({ type: 'error', error: { type: 'api_error', message: 'The server had an error while processing your request.' } });
  });
});
