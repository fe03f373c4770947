import { difyTokens, FAKE_DIFY_ANSWER, startFakeDify, type FakeDify } from '@modelgate/testkit';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/** Dify (37): an app's chat-messages API, blocking and streaming, with the `openai` SDK as caller and Dify's reported usage charged exactly. */
let h: RelayHarness;
let dify: FakeDify;
let agent: FakeDify;
let failing: FakeDify;
const KEY = 'app-FakeDifyKey0123456789';
const messages = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Hello there friend' },
];
const QUERY = 'SYSTEM: \nYou are terse.\nUSER: \nHello there friend\n';

beforeAll(async () => {
  h = await startRelayHarness();
  dify = await startFakeDify({ appKeys: [KEY] });
  agent = await startFakeDify({ appKeys: [KEY], agent: true });
  failing = await startFakeDify({ appKeys: [KEY], failMidStream: true });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ dify: 2, 'dify-agent': 2, 'dify-failing': 2, 'dify-revoked': 2 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ dify: 3, 'dify-agent': 3 }));
  await addChannel(h.root, { type: 37, key: KEY, base_url: dify.url, models: 'dify' });
  await addChannel(h.root, { type: 37, key: KEY, base_url: agent.url, models: 'dify-agent' });
  await addChannel(h.root, { type: 37, key: KEY, base_url: failing.url, models: 'dify-failing' });
});
afterAll(async () => {
  await dify.close();
  await agent.close();
  await failing.close();
  await h.close();
});

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);
const prompt = difyTokens(QUERY);
const completion = difyTokens(FAKE_DIFY_ANSWER);

describe('Dify channel', () => {
  it('blocking: flattened query, inputs {}, per-user user, no conversation; metadata.usage charged exactly', async () => {
    const c = await addCaller(h);
    let res: OpenAI.ChatCompletion | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: 'dify', messages, temperature: 0.5 });
    });
    const sent = dify.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat-messages');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toEqual({ inputs: {}, query: QUERY, response_mode: 'blocking', user: `modelgate-user-${c.userId}` });
    expect(res!.choices[0]!.message.content).toBe(FAKE_DIFY_ANSWER);
    expect(res!.choices[0]!.finish_reason).toBe('stop');
    expect(res!.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion });
    expect(cost).toBe(expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion }));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: 'dify', prompt_tokens: prompt, completion_tokens: completion, quota: cost });
  });

  it('another user gets another Dify user id', async () => {
    const c = await addCaller(h);
    await c.client.chat.completions.create({ model: 'dify', messages });
    expect((dify.requests.at(-1)!.body as { user: string }).user).toBe(`modelgate-user-${c.userId}`);
  });

  it('streaming: message events → OpenAI chunks, ping ignored, message_end usage charged exactly', async () => {
    const c = await addCaller(h);
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined;
    const cost = await spent(c, async () => {
      const stream = await c.client.chat.completions.create({ model: 'dify', messages, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect((dify.requests.at(-1)!.body as { response_mode: string }).response_mode).toBe('streaming');
    expect(text).toBe(FAKE_DIFY_ANSWER);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion });
    expect(cost).toBe(expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion }));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, quota: cost });
  });

  it('agent apps: agent_message answers streamed, agent_thought skipped', async () => {
    const c = await addCaller(h);
    let text = '';
    const cost = await spent(c, async () => {
      const stream = await c.client.chat.completions.create({ model: 'dify-agent', messages, stream: true });
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    });
    expect(text).toBe(FAKE_DIFY_ANSWER);
    expect(cost).toBe(expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion }));
  });

  it('an error event mid-stream ends the stream with Dify`s message and bills only what was delivered', async () => {
    const c = await addCaller(h);
    let text = '';
    const cost = await spent(c, async () => {
      const err = await (async () => {
        const stream = await c.client.chat.completions.create({ model: 'dify-failing', messages, stream: true });
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      })().catch((e: unknown) => e);
      expect(String((err as Error | undefined)?.message)).toContain('quota for Dify Hosted Model Provider has been exhausted');
    });
    expect(text).toBe('Hello ');
    const log = (await consumeLogs(h, c.userId))[0]!;
    // No usage came: the delivered 'Hello ' counted locally ('Hello' and the trailing space).
    expect(Number(log.completion_tokens)).toBe(2);
    expect(cost).toBe(expectedCharge({ modelRatio: 2 }, { prompt: Number(log.prompt_tokens), completion: Number(log.completion_tokens) }));
    expect(Number(log.quota)).toBe(cost);
  });

  it('a key Dify refuses: its message, nothing charged', async () => {
    await addChannel(h.root, { type: 37, key: 'app-revoked', base_url: dify.url, models: 'dify-revoked' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'dify-revoked', messages }, { maxRetries: 0 }).catch((e: unknown) => e)) as { status: number };
    expect(dify.requests.at(-1)!.rejected).toEqual({ status: 401, code: 'unauthorized', message: 'Access token is invalid' });
    expect(err.status).toBe(401);
    expect(await balances(h, c)).toEqual(before);
  });

  it('the channel test button; a key in the wrong format is refused on save', async () => {
    const id = await addChannel(h.root, { type: 37, key: KEY, base_url: dify.url, models: 'dify', test_model: 'dify' });
    const r = await h.root.get(`/api/channel/test/${id}`);
    expect(r.body).toMatchObject({ success: true });
    expect(dify.requests.at(-1)!.body).toMatchObject({ response_mode: 'blocking', user: 'modelgate-channel-test', query: 'USER: \nhi\n' });
    const bad = await h.root.post('/api/channel/', { type: 37, name: 'dify-bad', key: 'sk-not-an-app-key', models: 'dify', group: 'default' });
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toContain('app-');
  });
});
