import { FAKE_TOOL_INPUT, startFakeAnthropic, type FakeAnthropic } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../../../test-support/relay-fixtures.js';

/**
 * OpenAI chat callers (the official `openai` SDK) served by an Anthropic channel: the request is
 * converted to Messages, the reply and the event stream back to chat completions, and the
 * Anthropic usage (uncached input, cache reads at 0.1, cache writes at 1.25) is what is charged.
 */
let h: RelayHarness;
let claude: FakeAnthropic;
const MODEL = 'claude-3-5-sonnet-20241022';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];

beforeAll(async () => {
  h = await startRelayHarness();
  // Of each prompt, one token is read from the cache and one written to it.
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'], cacheReadTokens: 1, cacheCreationTokens: 1 });
  await addChannel(h.root, { type: 14, name: 'claude', key: 'sk-ant-upstream', base_url: claude.url, models: MODEL });
});
afterAll(async () => {
  await claude.close();
  await h.close();
});

/** claude-3-5-sonnet: model ratio 1.5, completion ratio 5, cache read 0.1, cache write 1.25. */
const charge = (uncached: number, read: number, written: number, completion: number) =>
  expectedCharge({ model: 'claude-3-5-sonnet-20241022' }, { prompt: uncached + read + written, cached: read, cacheWrite: written, completion });
const lastBody = () => claude.requests.at(-1)!.body as Record<string, unknown>;

describe('OpenAI chat → Anthropic channel', () => {
  it('converts a chat request, answers a chat completion and charges the Anthropic usage exactly', async () => {
    const c = await addCaller(h, { quota: 1_000_000, remain: 500_000 });
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'system', content: 'Be brief' }, ...messages],
      temperature: 0.5,
      top_p: 0.9,
      stop: 'END',
      max_tokens: 100,
    });
    expect(res.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello from the fake Claude' }, finish_reason: 'stop' });
    expect(lastBody()).toEqual({
      model: MODEL,
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be brief' }],
      messages,
      temperature: 0.5,
      top_p: 0.9,
      stop_sequences: ['END'],
    });
    expect(claude.requests.at(-1)!.headers).toMatchObject({ 'x-api-key': 'sk-ant-upstream', 'anthropic-version': '2023-06-01' });
    // 5 prompt words: 3 uncached, 1 cache read, 1 cache write.
    expect(res.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10, prompt_tokens_details: { cached_tokens: 1 } });
    const expected = charge(3, 1, 1, 5);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    expect(before.remain - after.remain).toBe(expected);
    expect(after.tokenUsed).toBe(expected);
    const [log] = await consumeLogs(h, c.userId);
    expect(log).toMatchObject({ model_name: MODEL, prompt_tokens: 5, completion_tokens: 5, quota: expected, is_stream: 0 });
    expect(JSON.parse(log!.other)).toMatchObject({ cache_tokens: 1, cache_ratio: 0.1, cache_creation_tokens: 1, cache_creation_ratio: 1.25, model_ratio: 1.5, completion_ratio: 5 });
  });

  it('streams: Anthropic events become chat chunks, with a usage chunk when asked, charged before [DONE]', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } }),
    });
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice('data: '.length)) as { choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: Record<string, unknown> });
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join('')).toBe('Hello from the fake Claude');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    // 3 prompt words: 1 uncached, 1 cache read, 1 cache write.
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1 } } });
    expect(lastBody()).toMatchObject({ stream: true });
    expect(lastBody().stream_options).toBeUndefined();
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(charge(1, 1, 1, 5));
    expect((await consumeLogs(h, c.userId))[0]!.is_stream).toBe(1);
  });

  it('round-trips a tool call: tool_use → tool_calls, then the tool result back as tool_result', async () => {
    const c = await addCaller(h);
    const ask = [{ role: 'user' as const, content: 'what is the weather in Paris?' }];
    const first = await c.client.chat.completions.create({ model: MODEL, messages: ask, tools, tool_choice: 'auto', parallel_tool_calls: false });
    expect(lastBody()).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather of a city', input_schema: tools[0]!.function.parameters }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    const call = first.choices[0]!.message.tool_calls![0]! as { id: string; type: 'function'; function: { name: string; arguments: string } };
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call.id).toMatch(/^toolu_/);
    expect(JSON.parse(call.function.arguments)).toEqual(FAKE_TOOL_INPUT);

    const second = await c.client.chat.completions.create({
      model: MODEL,
      tools,
      messages: [...ask, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' }],
    });
    expect(second.choices[0]!.message.content).toBe('Hello from the fake Claude');
    // The fake refuses a tool_result whose tool_use is not in the previous turn: this one matched.
    expect((lastBody().messages as unknown[]).slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'get_weather', input: FAKE_TOOL_INPUT }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny, 21 C' }] },
    ]);
  });

  it('streams a tool call as tool-call deltas indexed by call, arguments in fragments', async () => {
    const c = await addCaller(h);
    const stream = await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'weather in Oslo?' }], tools, stream: true });
    let args = '';
    let id = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const tc = chunk.choices[0]?.delta.tool_calls?.[0];
      if (tc) {
        expect(tc.index).toBe(0);
        if (tc.id) id = tc.id;
        args += tc.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(id).toMatch(/^toolu_/);
    expect(JSON.parse(args)).toEqual(FAKE_TOOL_INPUT);
    expect(finish).toBe('tool_calls');
  });

  it('sends images: data URLs as base64 sources, http URLs as url sources', async () => {
    const c = await addCaller(h);
    await c.client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect((lastBody().messages as Array<{ content: unknown }>)[0]!.content).toEqual([
      { type: 'text', text: 'what is in these?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('maps reasoning_effort to a thinking budget and thinking back to reasoning_content', async () => {
    const c = await addCaller(h);
    const res = await c.client.chat.completions.create({ model: MODEL, messages, max_tokens: 4000, reasoning_effort: 'low' });
    expect(lastBody()).toMatchObject({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(res.choices[0]!.message).toMatchObject({ content: 'Hello from the fake Claude', reasoning_content: 'Considering the question' });
  });

  it('refuses what Messages cannot express with a 400 naming the field, and charges nothing', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    for (const [extra, param] of [
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ response_format: { type: 'json_object' } }, 'response_format'],
      [{ temperature: 1.5 }, 'temperature'],
    ] as const) {
      const err = await c.client.chat.completions.create({ model: MODEL, messages, ...extra } as never).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, param, code: 'unsupported_parameter', type: 'invalid_request_error' });
      expect((err as Error).message).toContain(`${param}:`);
    }
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('answers Anthropic errors as OpenAI errors; 529 overloaded is retried on another channel', async () => {
    const c = await addCaller(h);
    await h.server.ctx.options.set('RetryTimes', '0');
    claude.setFault({ status: 529, times: 1 });
    const err = await c.client.chat.completions.create({ model: MODEL, messages }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 529, type: 'overloaded_error' });
    expect((err as Error).message).toContain('Overloaded');

    await h.server.ctx.options.set('RetryTimes', '1');
    const spare = await startFakeAnthropic({ apiKeys: ['sk-ant-spare'] });
    // A lower priority tier: tried only after the first channel failed.
    const spareId = await addChannel(h.root, { type: 14, name: 'claude-spare', key: 'sk-ant-spare', base_url: spare.url, models: MODEL, priority: -1 });
    try {
      claude.setFault({ status: 529, times: 1 });
      const res = await c.client.chat.completions.create({ model: MODEL, messages });
      expect(res.choices[0]!.message.content).toBe('Hello from the fake Claude');
      const log = (await consumeLogs(h, c.userId)).at(-1)!;
      const chain = (JSON.parse(log.other) as { admin_info: { use_channel: string[] } }).admin_info.use_channel;
      expect(chain).toHaveLength(2);
      expect(chain[1]).toBe(String(spareId));
      expect(Number(log.channel_id)).toBe(spareId);
      expect(spare.requests).toHaveLength(1);
    } finally {
      await h.root.del(`/api/channel/${spareId}`);
      await h.server.ctx.options.set('RetryTimes', '0');
      claude.setFault(null);
      await spare.close();
    }
  });

  it('a mid-stream error event ends the stream with an OpenAI error frame; only the delivered part is charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    // message_start, content_block_start, ping, "Hello", " from", then event: error (overloaded).
    claude.setFault({ errorAfterEvents: 5, times: 1 });
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages, stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":" from"');
    expect(text).not.toContain('[DONE]');
    const last = JSON.parse(text.trim().split('\n\n').at(-1)!.slice('data: '.length)) as { error: { type: string; message: string } };
    expect(last.error.type).toBe('overloaded_error');
    expect(last.error.message).toContain('Overloaded');
    const [log] = await consumeLogs(h, c.userId);
    // The prompt (with its cache split) from message_start; the completion counted over "Hello from".
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    const delivered = countTokens('Hello from');
    expect(log).toMatchObject({ prompt_tokens: 3, completion_tokens: delivered, quota: charge(1, 1, 1, delivered) });
    expect(before.quota - (await balances(h, c)).quota).toBe(charge(1, 1, 1, delivered));
  });
});
