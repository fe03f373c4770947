import type Anthropic from '@anthropic-ai/sdk';
import { FAKE_TOOL_ARGUMENTS, FAKE_TOOL_INPUT, startFakeAnthropic, type FakeAnthropic } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/**
 * The native Anthropic ingress `POST /v1/messages` with the official `@anthropic-ai/sdk` as the
 * caller: passed through to an Anthropic channel, converted for an OpenAI channel; billed and
 * logged like every relay call; errors in Anthropic's shape.
 */
let h: RelayHarness;
let claude: FakeAnthropic;
const CLAUDE = 'claude-3-5-sonnet-20241022';
const GPT = 'gpt-4';
const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello there friend' }];
const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }];

beforeAll(async () => {
  h = await startRelayHarness();
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'], cacheReadTokens: 1, cacheCreationTokens: 1 });
  await addChannel(h.root, { type: 14, name: 'claude', key: 'sk-ant-upstream', base_url: claude.url, models: CLAUDE });
  await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: GPT });
});
afterAll(async () => {
  await claude.close();
  await h.close();
});

const lastClaude = () => claude.requests.at(-1)!;
const lastOpenAI = () => h.fake.requests.at(-1)!.body as Record<string, unknown>;

describe('/v1/messages → Anthropic channel (passthrough)', () => {
  it('passes the body and the version headers through and charges the Anthropic usage', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const sdk = anthropicClient(h, c);
    // top_k is documented by the Messages API though this SDK version no longer types it.
    const params = { model: CLAUDE, max_tokens: 64, messages, system: 'Be brief', top_k: 5 } as Anthropic.MessageCreateParamsNonStreaming;
    const msg = await sdk.messages.create(params, {
      headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' },
    });
    expect(msg).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hello from the fake Claude' }], stop_reason: 'end_turn' });
    // 5 prompt words: 3 uncached, 1 read from the cache, 1 written to it.
    expect(msg.usage).toMatchObject({ input_tokens: 3, cache_read_input_tokens: 1, cache_creation_input_tokens: 1, output_tokens: 5 });
    const sent = lastClaude();
    expect(sent.body).toEqual({ model: CLAUDE, max_tokens: 64, messages, system: 'Be brief', top_k: 5 });
    expect(sent.headers).toMatchObject({ 'x-api-key': 'sk-ant-upstream', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' });
    // claude-3-5-sonnet: ratio 1.5, completion 5, cache read 0.1, cache write 1.25.
    const expected = expectedCharge({ model: CLAUDE }, { prompt: 5, cached: 1, cacheWrite: 1, completion: 5 });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    expect(before.remain - after.remain).toBe(expected);
    const [log] = await consumeLogs(h, c.userId);
    expect(log).toMatchObject({ model_name: CLAUDE, prompt_tokens: 5, completion_tokens: 5, quota: expected });
  });

  it('streams the upstream events as they came, message_stop after the bill', async () => {
    const c = await addCaller(h);
    const stream = anthropicClient(h, c).messages.stream({ model: CLAUDE, max_tokens: 64, messages, tools, tool_choice: { type: 'any' } });
    const types: string[] = [];
    stream.on('streamEvent', (ev) => types.push(ev.type));
    const final = await stream.finalMessage();
    // (The SDK does not surface `ping` events.)
    expect(types).toEqual(['message_start', 'content_block_start', ...Array(6).fill('content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    expect(final.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: FAKE_TOOL_INPUT }]);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage).toMatchObject({ input_tokens: 1, output_tokens: 5, cache_read_input_tokens: 1 });
    const [log] = await consumeLogs(h, c.userId);
    expect(log).toMatchObject({ prompt_tokens: 3, completion_tokens: 5, is_stream: 1, quota: expectedCharge({ model: CLAUDE }, { prompt: 3, cached: 1, cacheWrite: 1, completion: 5 }) });
  });

  it('passes an upstream mid-stream error on as an Anthropic error event and charges what was delivered', async () => {
    const c = await addCaller(h);
    claude.setFault({ errorAfterEvents: 5, times: 1 });
    const res = await fetch(`${h.server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${c.key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: CLAUDE, max_tokens: 64, messages, stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"text":" from"');
    expect(text).not.toContain('message_stop');
    const last = text.trim().split('\n\n').at(-1)!;
    expect(last.split('\n')[0]).toBe('event: error');
    expect(JSON.parse(last.split('\n')[1]!.slice('data: '.length))).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: expect.stringContaining('Overloaded') } });
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    const [log] = await consumeLogs(h, c.userId);
    expect(log).toMatchObject({ prompt_tokens: 3, completion_tokens: countTokens('Hello from') });
  });
});

describe('/v1/messages → OpenAI channel (converted)', () => {
  it('converts the request and the reply, and charges the OpenAI usage', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const msg = await anthropicClient(h, c).messages.create({
      model: GPT,
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief' }],
      messages,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-7' },
    });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hello from the fake OpenAI' }], stop_reason: 'end_turn', usage: { input_tokens: 5, output_tokens: 5 } });
    expect(lastOpenAI()).toEqual({ model: GPT, messages: [{ role: 'system', content: 'Be brief' }, ...messages], max_tokens: 64, stop: ['END'], user: 'u-7' });
    // gpt-4: ratio 15, completion ratio 2.
    const expected = expectedCharge({ model: GPT }, { prompt: 5, completion: 5 });
    expect(before.quota - (await balances(h, c)).quota).toBe(expected);
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: GPT, prompt_tokens: 5, completion_tokens: 5, quota: expected });
  });

  it('streams OpenAI chunks as Anthropic events, with the billed usage in message_delta', async () => {
    const c = await addCaller(h);
    const stream = anthropicClient(h, c).messages.stream({ model: GPT, max_tokens: 64, messages });
    const types: string[] = [];
    stream.on('streamEvent', (ev) => types.push(ev.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from the fake OpenAI', citations: null }].map(({ citations: _c, ...b }) => expect.objectContaining(b)));
    expect(types[0]).toBe('message_start');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(final.usage).toMatchObject({ input_tokens: 3, output_tokens: 5 });
    expect(lastOpenAI()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ prompt_tokens: 3, completion_tokens: 5, is_stream: 1, quota: expectedCharge({ model: GPT }, { prompt: 3, completion: 5 }) });
  });

  it('round-trips a tool call: tool_calls → tool_use, tool_result → a tool message', async () => {
    const c = await addCaller(h);
    const sdk = anthropicClient(h, c);
    const ask: Anthropic.MessageParam[] = [{ role: 'user', content: 'what is the weather in Paris?' }];
    const first = await sdk.messages.create({ model: GPT, max_tokens: 64, messages: ask, tools, tool_choice: { type: 'auto', disable_parallel_tool_use: true } });
    expect(lastOpenAI()).toMatchObject({ tools: [{ type: 'function', function: { name: 'get_weather', parameters: tools[0]!.input_schema } }], tool_choice: 'auto', parallel_tool_calls: false });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content[0] as Anthropic.ToolUseBlock;
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: JSON.parse(FAKE_TOOL_ARGUMENTS) as unknown });

    const second = await sdk.messages.create({
      model: GPT,
      max_tokens: 64,
      tools,
      tool_choice: { type: 'none' },
      messages: [...ask, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }, { type: 'text', text: 'thanks' }] }],
    });
    expect(second.content).toMatchObject([{ type: 'text', text: 'Hello from the fake OpenAI' }]);
    expect((lastOpenAI().messages as unknown[]).slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: use.id, type: 'function', function: { name: 'get_weather', arguments: FAKE_TOOL_ARGUMENTS } }] },
      { role: 'tool', tool_call_id: use.id, content: 'sunny' },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]);
  });

  it('streams a tool call as a tool_use block with input_json_delta fragments', async () => {
    const c = await addCaller(h);
    const final = await anthropicClient(h, c).messages.stream({ model: GPT, max_tokens: 64, messages: [{ role: 'user', content: 'weather in Oslo?' }], tools }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: JSON.parse(FAKE_TOOL_ARGUMENTS) as unknown }]);
  });

  it('sends image blocks as image_url data URIs', async () => {
    const c = await addCaller(h);
    await anthropicClient(h, c).messages.create({
      model: GPT,
      max_tokens: 16,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
    });
    expect((lastOpenAI().messages as Array<{ content: unknown }>)[0]!.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]);
  });

  it('a broken upstream stream ends with an Anthropic error event; only the delivered part is charged', async () => {
    const c = await addCaller(h);
    h.fake.setFault({ disconnectAfterChunks: 3, times: 1 });
    const stream = anthropicClient(h, c).messages.stream({ model: GPT, max_tokens: 64, messages });
    let text = '';
    stream.on('text', (t) => (text += t));
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(text).toBe('Hello from');
    expect(err).toMatchObject({ error: { type: 'error', error: { type: 'api_error', message: expect.stringContaining('broke off') } } });
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    const [log] = await consumeLogs(h, c.userId);
    expect(Number(log!.completion_tokens)).toBe(countTokens('Hello from'));
    expect(Number(log!.quota)).toBe(expectedCharge({ model: GPT }, { prompt: Number(log!.prompt_tokens), completion: Number(log!.completion_tokens) }));
  });
});

describe('/v1/messages errors and count_tokens', () => {
  const post = (path: string, key: string | undefined, body: unknown) =>
    fetch(`${h.server.url}${path}`, { method: 'POST', headers: { ...(key ? { 'x-api-key': key } : {}), 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers an invalid body with a 400 in Anthropic’s shape naming the field, before any upstream call', async () => {
    const c = await addCaller(h);
    const seen = claude.requests.length;
    for (const [body, field] of [
      [{ model: CLAUDE, messages }, 'max_tokens'],
      [{ model: CLAUDE, max_tokens: 10 }, 'messages'],
      [{ max_tokens: 10, messages }, 'model'],
      [{ model: CLAUDE, max_tokens: 10, messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.role'],
      // A system message may sit in the conversation (Claude Code), but not make all of it.
      [{ model: CLAUDE, max_tokens: 10, messages: [{ role: 'system', content: 'x' }] }, 'messages'],
      [{ model: CLAUDE, max_tokens: 10, messages, temperature: 3 }, 'temperature'],
    ] as const) {
      const res = await post('/v1/messages', `sk-${c.key}`, body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { type: string; error: { type: string; message: string } };
      expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(json.error.message).toContain(`${field}:`);
    }
    expect(claude.requests.length).toBe(seen);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('answers auth failures in Anthropic’s shape; Bearer works as well as x-api-key', async () => {
    const res = await post('/v1/messages', undefined, { model: CLAUDE, max_tokens: 10, messages });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const c = await addCaller(h);
    const bearer = await fetch(`${h.server.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CLAUDE, max_tokens: 10, messages }),
    });
    expect(bearer.status).toBe(200);
  });

  it('refuses what an OpenAI channel cannot take with a 400 naming the field', async () => {
    const c = await addCaller(h);
    // A server tool is left out with a note (relay.agent-shapes.test.ts), unless tool_choice forces it.
    const forced = { tools: [{ type: 'web_search_20250305', name: 'web_search' }], tool_choice: { type: 'tool', name: 'web_search' } };
    const err = await anthropicClient(h, c)
      .messages.create({ model: GPT, max_tokens: 10, messages, ...forced } as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('tool_choice:') } } });
  });

  it('counts prompt tokens locally, charging nothing', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const counted = await anthropicClient(h, c).messages.countTokens({ model: CLAUDE, messages, system: 'Be brief' });
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    // 3 per message + role + content, +3 per request (the relay's local counter).
    expect(counted.input_tokens).toBe(3 + 2 * 3 + countTokens('system') + countTokens('Be brief') + countTokens('user') + countTokens('Hello there friend'));
    expect(await balances(h, c)).toEqual(before);
    const bad = await post('/v1/messages/count_tokens', `sk-${c.key}`, { model: CLAUDE });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages:') } });
  });
});
