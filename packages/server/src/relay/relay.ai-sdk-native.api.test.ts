import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { FAKE_TOOL_INPUT, startFakeAnthropic, startFakeGemini, type FakeAnthropic, type FakeGemini } from '@modelgate/testkit';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/**
 * The Vercel AI SDK's Google (`@ai-sdk/google`) and Anthropic (`@ai-sdk/anthropic`) providers as
 * callers of the native endpoints (`/v1beta/models/…`, `/v1/messages`), each against a channel of
 * its own format (passed through) and of another (converted), billed exactly.
 */
let h: RelayHarness;
let gemini: FakeGemini;
let claude: FakeAnthropic;
const GEMINI = 'gemini-2.0-flash';
const CLAUDE = 'claude-3-5-sonnet-20241022';
const GPT = 'gpt-4';
const prompt = 'Hello there friend';
/** The ModelRatio table this file sets; completion ratios stay the shipped defaults (Gemini 4, Claude 5). */
const MODEL_RATIO = { [GEMINI]: 2, [CLAUDE]: 1.5, [GPT]: 15 };
/** One converted reply: 3 prompt tokens, 5 completion tokens. */
const reply = (model: string) => expectedCharge({ model, tables: { modelRatio: MODEL_RATIO } }, { prompt: 3, completion: 5 });

beforeAll(async () => {
  h = await startRelayHarness();
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'] });
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify(MODEL_RATIO));
  await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: GEMINI });
  await addChannel(h.root, { type: 14, name: 'claude', key: 'sk-ant-upstream', base_url: claude.url, models: CLAUDE });
  await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: GPT });
});
afterAll(async () => {
  await gemini.close();
  await claude.close();
  await h.close();
});

const google = (key: string) => createGoogleGenerativeAI({ apiKey: `sk-${key}`, baseURL: `${h.server.url}/v1beta` });
const anthropic = (key: string) => createAnthropic({ apiKey: `sk-${key}`, baseURL: `${h.server.url}/v1` });
const weather = tool({ description: 'Weather of a city', inputSchema: jsonSchema<{ location: string }>({ type: 'object', properties: { location: { type: 'string' } }, required: ['location'] }) });

describe('@ai-sdk/google → /v1beta/models', () => {
  it('generateText on a Gemini channel (passthrough) and an Anthropic channel (converted), billed exactly', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const g = await generateText({ model: google(c.key)(GEMINI), prompt, maxRetries: 0 });
    expect(g.text).toBe('Hello from the fake Gemini');
    expect(g.usage).toMatchObject({ inputTokens: 3, outputTokens: 5 });
    expect(gemini.requests.at(-1)!.headers['x-goog-api-key']).toBe('AIza-upstream');
    const a = await generateText({ model: google(c.key)(CLAUDE), prompt, maxRetries: 0 });
    expect(a.text).toBe('Hello from the fake Claude');
    const expected = reply(GEMINI) + reply(CLAUDE);
    expect(before.quota - (await balances(h, c)).quota).toBe(expected);
    expect((await consumeLogs(h, c.userId)).map((l) => l.model_name)).toEqual([GEMINI, CLAUDE]);
  });

  it('streamText with a tool call through an OpenAI channel (converted)', async () => {
    const c = await addCaller(h);
    const result = streamText({ model: google(c.key)(GPT), prompt: 'what is the weather in Paris?', tools: { get_weather: weather }, maxRetries: 0 });
    const calls = await result.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: 'get_weather', input: FAKE_TOOL_INPUT });
    expect(await result.finishReason).toBe('tool-calls');
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: GPT, is_stream: 1 });
  });
});

describe('@ai-sdk/anthropic → /v1/messages', () => {
  it('generateText on an Anthropic channel (passthrough) and a Gemini channel (converted through chat)', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const a = await generateText({ model: anthropic(c.key)(CLAUDE), prompt, maxOutputTokens: 64, maxRetries: 0 });
    expect(a.text).toBe('Hello from the fake Claude');
    const g = await generateText({ model: anthropic(c.key)(GEMINI), prompt, maxOutputTokens: 64, maxRetries: 0 });
    expect(g.text).toBe('Hello from the fake Gemini');
    expect(g.usage).toMatchObject({ inputTokens: 3, outputTokens: 5 });
    const expected = reply(CLAUDE) + reply(GEMINI);
    expect(before.quota - (await balances(h, c)).quota).toBe(expected);
  });

  it('streamText with a tool call on a Gemini channel, then the tool result back', async () => {
    const c = await addCaller(h);
    const first = streamText({ model: anthropic(c.key)(GEMINI), prompt: 'what is the weather in Paris?', tools: { get_weather: weather }, maxOutputTokens: 64, maxRetries: 0 });
    const calls = await first.toolCalls;
    expect(calls[0]).toMatchObject({ toolName: 'get_weather', input: FAKE_TOOL_INPUT });
    const call = calls[0]!;
    const second = await generateText({
      model: anthropic(c.key)(GEMINI),
      tools: { get_weather: weather },
      maxOutputTokens: 64,
      maxRetries: 0,
      messages: [
        { role: 'user', content: 'what is the weather in Paris?' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: call.toolCallId, toolName: 'get_weather', input: call.input }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: 'get_weather', output: { type: 'text', value: 'sunny' } }] },
      ],
    });
    expect(second.text).toBe('Hello from the fake Gemini');
    expect((gemini.requests.at(-1)!.body as { contents: unknown[] }).contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: FAKE_TOOL_INPUT } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: 'sunny' } } }] },
    ]);
  });
});
