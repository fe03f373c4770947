import { FAKE_PALM_REPLY, startFakePalm, type FakePalm } from '@modelgate/testkit';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/** Google PaLM 2 (11) through `generateMessage`: the `openai` SDK as caller, the PaLM fake, usage counted locally and charged exactly. */
let h: RelayHarness;
let palm: FakePalm;
const MODEL = 'chat-bison-001';
const KEY = 'AIzaSyFakePalmKey_0123456789';
const messages = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Hello there friend' },
  { role: 'assistant' as const, content: 'Hi.' },
  { role: 'user' as const, content: 'How are you today?' },
];

beforeAll(async () => {
  h = await startRelayHarness();
  palm = await startFakePalm({ apiKeys: [KEY] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [MODEL]: 2, 'chat-bison-001-bad': 2, 'chat-bison-blocked': 2 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [MODEL]: 3 }));
  await addChannel(h.root, { type: 11, key: KEY, base_url: palm.url, models: MODEL });
});
afterAll(async () => {
  await palm.close();
  await h.close();
});

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);
const last = () => palm.requests.at(-1)!;
const expectedBody = {
  prompt: {
    context: 'You are terse.',
    messages: [
      { author: '0', content: 'Hello there friend' },
      { author: '1', content: 'Hi.' },
      { author: '0', content: 'How are you today?' },
    ],
  },
  candidateCount: 1,
  temperature: 0.3,
};

describe('Google PaLM 2 channel', () => {
  it('chat: generateMessage with ?key=, system → context, authors 0/1; usage counted locally and charged exactly', async () => {
    const c = await addCaller(h);
    let res: OpenAI.ChatCompletion | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: MODEL, messages, temperature: 0.3, max_tokens: 64 });
    });
    expect(last().path).toBe(`/v1beta2/models/${MODEL}:generateMessage`);
    expect(last().key).toBe(KEY);
    expect(last().body).toEqual(expectedBody);
    expect(res!.choices[0]!.message.content).toBe(FAKE_PALM_REPLY);
    expect(res!.choices[0]!.finish_reason).toBe('stop');
    // PaLM reports no usage: both sides are the server's local count, billed and written into the reply.
    const prompt = res!.usage!.prompt_tokens;
    const completion = res!.usage!.completion_tokens;
    expect(prompt).toBeGreaterThan(0);
    expect(completion).toBeGreaterThan(0);
    expect(cost).toBe(expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion }));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: MODEL, prompt_tokens: prompt, completion_tokens: completion, quota: cost });
  });

  it('stream: PaLM answers JSON once; the caller gets one OpenAI chunk, the usage chunk and [DONE], charged exactly', async () => {
    const c = await addCaller(h);
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    const cost = await spent(c, async () => {
      const stream = await c.client.chat.completions.create({ model: MODEL, messages, temperature: 0.3, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) chunks.push(chunk);
    });
    expect(last().body).toEqual(expectedBody);
    const content = chunks.filter((k) => k.choices.length > 0);
    expect(content).toHaveLength(1);
    expect(content[0]!.choices[0]!.delta.content).toBe(FAKE_PALM_REPLY);
    expect(content[0]!.choices[0]!.finish_reason).toBe('stop');
    const usage = chunks.at(-1)!.usage!;
    const log = (await consumeLogs(h, c.userId))[0]!;
    expect(usage).toMatchObject({ prompt_tokens: Number(log.prompt_tokens), completion_tokens: Number(log.completion_tokens) });
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(Number(log.prompt_tokens)).toBe(usage.prompt_tokens);
    expect(cost).toBe(expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt: usage.prompt_tokens, completion: usage.completion_tokens }));
    expect(Number(log.quota)).toBe(cost);
  });

  it('a key Google refuses: its message, nothing charged, the channel auto-disabled', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const id = await addChannel(h.root, { type: 11, key: 'AIzaSyRevokedKey_000000000000', base_url: palm.url, models: 'chat-bison-001-bad', model_mapping: JSON.stringify({ 'chat-bison-001-bad': MODEL }) });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'chat-bison-001-bad', messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(last().rejected).toEqual({ status: 400, reason: 'API_KEY_INVALID' });
    expect(err.status).toBe(400);
    expect(await balances(h, c)).toEqual(before);
    const ch = (await h.root.get(`/api/channel/${id}`)).body.data as { status: number };
    expect(ch.status).not.toBe(1);
  });

  it('a reply PaLM filtered (no candidate) is an error, nothing charged', async () => {
    const blocked = await startFakePalm({ apiKeys: [KEY], blockReason: 'SAFETY' });
    try {
      await addChannel(h.root, { type: 11, key: KEY, base_url: blocked.url, models: 'chat-bison-blocked', model_mapping: JSON.stringify({ 'chat-bison-blocked': MODEL }) });
      const c = await addCaller(h);
      const before = await balances(h, c);
      const err = (await c.client.chat.completions.create({ model: 'chat-bison-blocked', messages }, { maxRetries: 0 }).catch((e: unknown) => e)) as { status: number; message: string };
      expect(err.message).toContain('SAFETY');
      expect(await balances(h, c)).toEqual(before);
    } finally {
      await blocked.close();
    }
  });

  it('channel test button, fetch models and key format on save', async () => {
    const id = await addChannel(h.root, { type: 11, key: KEY, base_url: palm.url, models: MODEL, test_model: MODEL });
    const r = await h.root.get(`/api/channel/test/${id}`);
    expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
    expect(last().path).toBe(`/v1beta2/models/${MODEL}:generateMessage`);
    const listed = await h.root.get(`/api/channel/fetch_models/${id}`);
    expect(listed.body).toMatchObject({ success: true, data: ['chat-bison-001', 'text-bison-001', 'embedding-gecko-001'] });
    expect(last()).toMatchObject({ method: 'GET', path: '/v1beta2/models', key: KEY });
    const bad = await h.root.post('/api/channel/', { type: 11, name: 'palm-bad', key: 'not a key', models: MODEL, group: 'default' });
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toContain('Google API key');
  });
});
