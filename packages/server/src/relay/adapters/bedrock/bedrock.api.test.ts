import { expectedMessagesUsage, FAKE_TOOL_INPUT, startFakeBedrock, type FakeBedrock } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../../../test-support/relay-fixtures.js';

/**
 * AWS Bedrock channels (type 33) through the real pipeline: OpenAI and Anthropic SDK callers,
 * SigV4-signed requests checked by the fake with its own implementation, binary event-stream
 * replies decoded as they arrive, and the Claude usage charged exactly.
 */
let h: RelayHarness;
let aws: FakeBedrock;
const MODEL = 'claude-3-5-sonnet-20241022';
const BAD_MODEL = 'claude-3-haiku-20240307';
const PROFILE_ID = 'us.anthropic.claude-3-5-sonnet-20241022-v2:0';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

beforeAll(async () => {
  h = await startRelayHarness();
  aws = await startFakeBedrock({ credentials: [{ accessKeyId: 'AKIDFAKE', secretAccessKey: 'right-secret' }], region: 'us-west-2' });
  await addChannel(h.root, { type: 33, key: 'AKIDFAKE|right-secret|us-west-2', base_url: aws.url, models: MODEL });
  // Same access key, wrong secret: the signature cannot match.
  await addChannel(h.root, { type: 33, key: 'AKIDFAKE|wrong-secret|us-west-2', base_url: aws.url, models: BAD_MODEL });
});
afterAll(async () => {
  await aws.close();
  await h.close();
});

/** claude-3-5-sonnet: model ratio 1.5, completion ratio 5. */
const charge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 1.5, completionRatio: 5 }, { prompt, completion });
const last = () => aws.requests.at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;
const promptOf = (body: Record<string, unknown>) => expectedMessagesUsage({ ...body, model: MODEL }).input_tokens;

describe('Bedrock channel', () => {
  it('OpenAI caller: signed InvokeModel on the inference profile, Bedrock body, exact charge', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: MODEL, messages, max_tokens: 100, temperature: 0.5 });
    expect(res.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello from the fake Claude' }, finish_reason: 'stop' });
    expect(last().rejected).toBeUndefined();
    expect(last().path).toBe(`/model/${encodeURIComponent(PROFILE_ID)}/invoke`);
    expect(last().headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDFAKE\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=/);
    expect(lastBody()).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages, temperature: 0.5 });
    const prompt = promptOf(lastBody());
    expect(res.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(charge(prompt, 5));
    expect(before.remain - after.remain).toBe(charge(prompt, 5));
    const [log] = await consumeLogs(h, c.userId);
    expect(log).toMatchObject({ model_name: MODEL, prompt_tokens: prompt, completion_tokens: 5, quota: charge(prompt, 5), is_stream: 0 });
  });

  it('OpenAI caller, stream: event-stream frames (split across reads) become chat chunks, charged exactly', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const stream = await c.client.chat.completions.create({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from the fake Claude');
    expect(last().path).toBe(`/model/${encodeURIComponent(PROFILE_ID)}/invoke-with-response-stream`);
    expect(last().headers).toMatchObject({ accept: 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-accept': 'application/json' });
    expect(lastBody().stream).toBeUndefined();
    const prompt = promptOf(lastBody());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(charge(prompt, 5));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ quota: charge(prompt, 5), is_stream: 1 });
  });

  it('Anthropic SDK caller on /v1/messages: passthrough with anthropic_beta in the body, text and stream', async () => {
    const c = await addCaller(h);
    const claude = anthropicClient(h, c);
    const msg = await claude.messages.create({ model: MODEL, max_tokens: 50, messages }, { headers: { 'anthropic-beta': 'token-efficient-tools-2025-02-19' } });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hello from the fake Claude' }], stop_reason: 'end_turn' });
    expect(lastBody()).toEqual({ anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['token-efficient-tools-2025-02-19'], max_tokens: 50, messages });
    const events: string[] = [];
    let streamed = '';
    for await (const ev of await claude.messages.create({ model: MODEL, max_tokens: 50, messages, stream: true })) {
      events.push(ev.type);
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') streamed += ev.delta.text;
    }
    expect(streamed).toBe('Hello from the fake Claude');
    expect(events[0]).toBe('message_start');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const logs = await consumeLogs(h, c.userId);
    const prompt = promptOf(lastBody());
    expect(logs.map((l) => Number(l.quota))).toEqual([charge(prompt, 5), charge(prompt, 5)]);
  });

  it('round-trips a tool call (OpenAI tools → Claude tool_use → tool_calls)', async () => {
    const c = await addCaller(h);
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
    const res = await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'weather in Paris?' }], tools });
    expect(lastBody()).toMatchObject({ tools: [{ name: 'get_weather', input_schema: tools[0]!.function.parameters }] });
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    const call = res.choices[0]!.message.tool_calls![0]! as { function: { name: string; arguments: string } };
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual(FAKE_TOOL_INPUT);
  });

  it('a throttled request answers AWS\'s ThrottlingException as a 429, charging nothing', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    aws.setFault({ status: 429, times: 1 });
    const err = (await c.client.chat.completions.create({ model: MODEL, messages }).catch((e: unknown) => e)) as { status: number; message: string };
    aws.setFault(null);
    expect(err.status).toBe(429);
    expect(last().rejected).toEqual({ status: 429, exception: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' });
    expect(await balances(h, c)).toEqual(before);
  });

  it('a wrong secret key: the fake refuses the signature, the caller gets a clear error and the channel is disabled', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const c = await addCaller(h);
    const err = (await c.client.chat.completions.create({ model: BAD_MODEL, messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(last().rejected).toMatchObject({ status: 403, exception: 'InvalidSignatureException' });
    expect(err.status).toBe(403);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('models', '=', BAD_MODEL).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('InvalidSignatureException: The request signature we calculated does not match');
    expect(await consumeLogs(h, c.userId)).toEqual([]);
  });

  it('a corrupted frame ends the stream with an error event and bills only what was delivered', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    // message_start, content_block_start and "Hello" arrive; the next frame fails its CRC.
    aws.setFault({ corruptAfterEvents: 3, times: 1 });
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages, stream: true }),
    });
    aws.setFault(null);
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice('data: '.length)) as { choices: Array<{ delta: { content?: string } }> });
    expect(chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join('')).toBe('Hello');
    const failed = JSON.parse(frames.at(-1)!.slice('data: '.length)) as { error: { message: string } };
    expect(failed.error.message).toContain('corrupted Bedrock event stream: event-stream message CRC mismatch');
    const [log] = await consumeLogs(h, c.userId);
    const prompt = promptOf(lastBody());
    // The prompt as message_start reported it, the one delivered word counted.
    expect(log).toMatchObject({ prompt_tokens: prompt, completion_tokens: 1, quota: charge(prompt, 1) });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(charge(prompt, 1));
  });
});
