import { FAKE_VENDOR_KEY, FAKE_VENDOR_TEXT, FAKE_VENDOR_WORDS, SLOPPY_TIMINGS, startFakeVendor, vendorPromptTokens, type FakeVendor } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertAllConform, assertConforms, openapiAvailable, openapiSkipReason, schemaErrors } from '../../../test-support/openapi-contract.js';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * A Custom (type 8) channel's `force_format` setting (reference §3.4) against a sloppy
 * OpenAI-compatible upstream (the testkit's `sloppy` vendor: no `object`, null or missing `id`,
 * `created` as a string, fields of its own, `eos` and `""` finish reasons, `logprobs: {}`, usage
 * without a total, `data:` frames without the space, extra spaces and CRLF). On: every chunk and the
 * non-stream answer reach the caller in OpenAI's published shape (checked against OpenAI's OpenAPI
 * document and by the official SDK). Off: the upstream's payloads pass through as they came. The
 * bill is exact either way: the user and the token pay the log row's quota, the upstream's count.
 */
if (!openapiAvailable) console.warn(`force-format: schema checks skipped: ${openapiSkipReason}`);

const ON = 'ff-on';
const OFF = 'ff-off';
const messages = [{ role: 'user' as const, content: 'Tell me something nice please' }];
const PROMPT = vendorPromptTokens({ messages });
const COMPLETION = FAKE_VENDOR_WORDS.length;

let h: RelayHarness;
let sloppy: FakeVendor;

beforeAll(async () => {
  h = await startRelayHarness();
  sloppy = await startFakeVendor('sloppy');
  await priceModels(h, [ON, OFF]);
  const base = `${sloppy.url}/api/{model}/generate`;
  await addChannel(h.root, { type: 8, key: FAKE_VENDOR_KEY, base_url: base, models: ON, setting: JSON.stringify({ force_format: true }) });
  await addChannel(h.root, { type: 8, key: FAKE_VENDOR_KEY, base_url: base, models: OFF });
});
afterAll(async () => {
  await sloppy?.close();
  await h?.close();
});

const post = (c: TestCaller, body: Record<string, unknown>) =>
  fetch(`${h.server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The `data:` payloads of an SSE body, as written (the caller's framing is checked separately). */
const payloads = (text: string): string[] =>
  text
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((f) => {
      expect(f.startsWith('data: '), `frame ${JSON.stringify(f)}`).toBe(true);
      return f.slice(6);
    });

/** Runs `fn` and checks the bill: one new consume row with the upstream's counts, its quota paid exactly by user and token. */
async function billed(c: TestCaller, fn: () => Promise<void>): Promise<void> {
  const before = await balances(h, c);
  const rowsBefore = (await consumeLogs(h, c.userId)).length;
  await fn();
  const rows = await consumeLogs(h, c.userId);
  expect(rows).toHaveLength(rowsBefore + 1);
  const log = rows.at(-1)!;
  // Ratio 1, completion ratio 1: the quota is the token count.
  expect(log).toMatchObject({ prompt_tokens: PROMPT, completion_tokens: COMPLETION, quota: PROMPT + COMPLETION });
  const after = await balances(h, c);
  expect(before.quota - after.quota).toBe(PROMPT + COMPLETION);
  expect(before.remain - after.remain).toBe(PROMPT + COMPLETION);
  expect(after.userUsed - before.userUsed).toBe(PROMPT + COMPLETION);
  expect(after.tokenUsed - before.tokenUsed).toBe(PROMPT + COMPLETION);
}

describe('force_format on a Custom channel', () => {
  it('a stream reaches the caller as OpenAI chunks: one id and timestamp, only OpenAI fields, OpenAI finish reason, the usage chunk asked for', async () => {
    const c = await addCaller(h);
    let text = '';
    await billed(c, async () => {
      text = await (await post(c, { model: ON, messages, stream: true, stream_options: { include_usage: true } })).text();
    });
    expect(sloppy.requests.at(-1)!.path).toBe(`/api/${ON}/generate`);
    const frames = payloads(text);
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((p) => JSON.parse(p) as Record<string, unknown>);
    if (openapiAvailable) assertAllConform('CreateChatCompletionStreamResponse', chunks);
    // The upstream's `data:` without its space, its spaces and CRLFs: none of it reaches the caller.
    expect(text).not.toMatch(/\r|data:(?! )|data: {2}/);
    const id = chunks[0]!.id as string;
    const created = chunks[0]!.created as number;
    expect(id).toMatch(/^chatcmpl-/);
    expect(Number.isInteger(created)).toBe(true);
    for (const ch of chunks) {
      expect(ch).toMatchObject({ id, created, object: 'chat.completion.chunk', model: ON });
      expect(Object.keys(ch).sort()).toEqual(['choices', 'created', 'id', 'model', 'object', 'usage']);
    }
    const choices = chunks.flatMap((ch) => ch.choices as Array<Record<string, unknown>>);
    expect(choices.map((x) => (x.delta as { content?: string }).content ?? '').join('')).toBe(FAKE_VENDOR_TEXT);
    for (const x of choices) expect(Object.keys(x).sort()).toEqual(['delta', 'finish_reason', 'index', 'logprobs']);
    expect(choices.map((x) => x.finish_reason)).toEqual([...Array(choices.length - 1).fill(null), 'stop']);
    // Only the last chunk carries usage (with the total the upstream left out); the others say null.
    expect(chunks.slice(0, -1).every((ch) => ch.usage === null)).toBe(true);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: PROMPT, completion_tokens: COMPLETION, total_tokens: PROMPT + COMPLETION });
  });

  it('the official SDK reads the stream to a whole completion, and a caller that did not ask sees no usage chunk', async () => {
    const c = await addCaller(h);
    await billed(c, async () => {
      const final = await c.client.chat.completions.stream({ model: ON, messages }).finalChatCompletion();
      expect(final.choices[0]!.message.content).toBe(FAKE_VENDOR_TEXT);
      expect(final.choices[0]!.finish_reason).toBe('stop');
    });
    const text = await (await post(c, { model: ON, messages, stream: true })).text();
    const chunks = payloads(text)
      .filter((p) => p !== '[DONE]')
      .map((p) => JSON.parse(p) as Record<string, unknown>);
    expect(chunks.length).toBeGreaterThan(0);
    for (const ch of chunks) {
      expect(ch).not.toHaveProperty('usage');
      expect((ch.choices as unknown[]).length).toBe(1);
    }
  });

  it('a non-stream answer is rebuilt as an OpenAI chat.completion with the billed usage', async () => {
    const c = await addCaller(h);
    let body: Record<string, unknown> = {};
    await billed(c, async () => {
      const res = await post(c, { model: ON, messages });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      body = (await res.json()) as Record<string, unknown>;
    });
    if (openapiAvailable) assertConforms('CreateChatCompletionResponse', body);
    expect(Object.keys(body).sort()).toEqual(['choices', 'created', 'id', 'model', 'object', 'usage']);
    expect(body).toMatchObject({ id: expect.stringMatching(/^chatcmpl-/), object: 'chat.completion', created: expect.any(Number), model: ON });
    expect(body.choices).toEqual([{ index: 0, message: { role: 'assistant', content: FAKE_VENDOR_TEXT, refusal: null }, logprobs: null, finish_reason: 'stop' }]);
    expect(body.usage).toEqual({ prompt_tokens: PROMPT, completion_tokens: COMPLETION, total_tokens: PROMPT + COMPLETION });
  });
});

describe('without force_format the upstream passes through', () => {
  it('stream: every payload is the upstream one as sent, billed the same', async () => {
    const c = await addCaller(h);
    let text = '';
    await billed(c, async () => {
      text = await (await post(c, { model: OFF, messages, stream: true })).text();
    });
    const frames = payloads(text);
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((p) => JSON.parse(p) as Record<string, unknown>);
    // The role frame, five words and the closing frame, each exactly as the upstream wrote it (key order included).
    expect(chunks).toHaveLength(COMPLETION + 2);
    expect(chunks[0]).not.toHaveProperty('id');
    expect(chunks[0]).toHaveProperty('timings', null);
    chunks.slice(1, -1).forEach((ch, i) => {
      expect(ch).toEqual({ id: null, object: '', model: OFF, choices: [{ delta: { content: i === 0 ? FAKE_VENDOR_WORDS[0] : ` ${FAKE_VENDOR_WORDS[i]}`, role: null }, finish_reason: '', logprobs: {} }], x_extra: i });
      // `data:   {…}`: the SSE field keeps all but the first space, and so does the pass-through.
      expect(frames[i + 1]).toBe(`  ${JSON.stringify(ch)}`);
    });
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: 'eos' }], timings: SLOPPY_TIMINGS });
    if (openapiAvailable) expect(schemaErrors('CreateChatCompletionStreamResponse', chunks[1])).not.toEqual([]);
  });

  it('non-stream: the bytes are the upstream answer, billed the same', async () => {
    const c = await addCaller(h);
    let text = '';
    await billed(c, async () => {
      text = await (await post(c, { model: OFF, messages })).text();
    });
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(text).toBe(JSON.stringify(body));
    expect(body).toMatchObject({ id: null, server: 'sloppy/0.1', timings: SLOPPY_TIMINGS, choices: [{ finish_reason: 'eos', logprobs: {}, seed: 42 }] });
    expect(body).not.toHaveProperty('object');
    if (openapiAvailable) expect(schemaErrors('CreateChatCompletionResponse', body)).not.toEqual([]);
  });
});
