import { FAKE_SPARK_KEY, sparkPromptTokens, startFakeSpark, type FakeSpark } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * iFlytek Spark (18): one signed WebSocket per request to the Spark fake (which verifies the
 * HMAC signature and the date during the upgrade, and the request frame), the official SDKs as
 * callers; exact charges from the last frame's usage; error codes, early closes and client aborts.
 */
let h: RelayHarness;
let sp: FakeSpark;
let chId = 0;
const V35 = 'SparkDesk-v3.5';
const BARE = 'SparkDesk';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const TEXT = 'Hello from the fake Spark';

beforeAll(async () => {
  h = await startRelayHarness();
  sp = await startFakeSpark();
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [V35]: 2, [BARE]: 1, 'spark-lite': 1 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [V35]: 3, [BARE]: 1 }));
  chId = await addChannel(h.root, { type: 18, key: FAKE_SPARK_KEY, base_url: sp.url, models: `${V35},${BARE}` });
});
afterAll(async () => {
  await sp.close();
  await h.close();
});

const last = () => sp.requests.at(-1)!;
const lastFrame = () => last().frame as Record<string, unknown>;
const charge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion });

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

async function waitFor<T>(get: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const v = await get();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting');
}

describe('iFlytek Spark', () => {
  it('chat: signed upgrade to the version of the model, the request frame, exact charge from the last frame', async () => {
    const c = await addCaller(h);
    let res: Awaited<ReturnType<typeof c.client.chat.completions.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: V35, messages: [{ role: 'system', content: 'Be brief' }, ...messages], temperature: 0.5, max_tokens: 100 });
    });
    expect(last().rejected).toBeUndefined();
    expect(last().path).toBe('/v3.5/chat');
    expect(Object.keys(last().query).sort()).toEqual(['authorization', 'date', 'host']);
    expect(last().query.date).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(lastFrame()).toEqual({
      header: { app_id: 'fakeapp1', uid: `user-${c.userId}` },
      parameter: { chat: { domain: 'generalv3.5', temperature: 0.5, max_tokens: 100 } },
      payload: { message: { text: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hello there friend' }] } },
    });
    const prompt = sparkPromptTokens(lastFrame());
    const r = res as { choices: Array<{ message: { content: string }; finish_reason: string }>; usage: unknown; model: string };
    expect(r.model).toBe(V35);
    expect(r.choices[0]).toMatchObject({ message: { content: TEXT }, finish_reason: 'stop' });
    expect(r.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5, total_tokens: prompt + 5 });
    expect(cost).toBe(charge(prompt, 5));
    const logs = await consumeLogs(h, c.userId);
    expect(logs[0]).toMatchObject({ model_name: V35, channel_id: chId, prompt_tokens: prompt, completion_tokens: 5, quota: charge(prompt, 5) });
    const after = await balances(h, c);
    expect(after.userUsed).toBe(charge(prompt, 5));
    expect(after.tokenUsed).toBe(charge(prompt, 5));
  });

  it('stream: frames become chunks, the version from the channel (v2.1), usage of the last frame billed; Anthropic callers served', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    const cost = await spent(c, async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: BARE, messages: [{ role: 'system', content: 'Be brief' }, ...messages], stream: true, stream_options: { include_usage: true } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(text).toBe(TEXT);
    expect(last().path).toBe('/v2.1/chat');
    // v2.1 takes no system role: it travels as a user turn the assistant acknowledged.
    expect(lastFrame().payload).toEqual({ message: { text: [{ role: 'user', content: 'Be brief' }, { role: 'assistant', content: 'Okay' }, { role: 'user', content: 'Hello there friend' }] } });
    expect((lastFrame().parameter as { chat: unknown }).chat).toEqual({ domain: 'generalv2' });
    const prompt = sparkPromptTokens(lastFrame());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(expectedCharge({ modelRatio: 1, completionRatio: 1 }, { prompt, completion: 5 }));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: BARE, prompt_tokens: prompt, completion_tokens: 5, quota: expectedCharge({ modelRatio: 1, completionRatio: 1 }, { prompt, completion: 5 }) });
    let streamed = '';
    for await (const ev of await anthropicClient(h, c).messages.create({ model: V35, max_tokens: 30, messages, stream: true })) {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') streamed += ev.delta.text;
    }
    expect(streamed).toBe(TEXT);
  });

  it('a socket closed before the last frame ends the stream with an error; only the delivered text is billed', async () => {
    const c = await addCaller(h);
    sp.setFault({ closeAfter: 3, times: 1 });
    const before = await balances(h, c);
    let text = '';
    const err = await (async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: V35, messages, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toContain('the upstream stream broke off');
    expect(text).toBe('Hello from the');
    const log = await waitFor(async () => (await consumeLogs(h, c.userId))[0]);
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    expect(Number(log.completion_tokens)).toBe(countTokens('Hello from the'));
    expect(Number(log.quota)).toBe(charge(Number(log.prompt_tokens), Number(log.completion_tokens)));
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(Number(log.quota));
    expect(before.remain - after.remain).toBe(Number(log.quota));
  });

  it('a content refusal (10013) is a 400 with iFlytek\'s message: not retried, the channel kept, nothing charged', async () => {
    const c = await addCaller(h);
    sp.setFault({ code: 10013, message: 'the input content is not compliant', times: 1 });
    const calls = sp.requests.length;
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: V35, messages }).catch((e: unknown) => e)) as { status: number; message: string; code: string };
    expect(err.status).toBe(400);
    expect(err.code).toBe('10013');
    expect(err.message).toContain('the input content is not compliant');
    expect(sp.requests).toHaveLength(calls + 1);
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select('status').where('id', '=', chId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(1);
  });

  it('an error code mid-stream ends the caller\'s stream with it', async () => {
    const c = await addCaller(h);
    sp.setFault({ code: 10014, message: 'the output content is not compliant', afterFrames: 2, times: 1 });
    let text = '';
    const err = await (async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: V35, messages, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e as Error);
    expect(String((err as Error).message)).toContain('the output content is not compliant');
    expect(text).toBe('Hello from');
  });

  it('a client that leaves closes the upstream socket; what was delivered is billed', async () => {
    const c = await addCaller(h);
    sp.setFrameDelay(100);
    try {
      const controller = new AbortController();
      const stream = await c.client.chat.completions.create({ model: V35, messages, stream: true }, { signal: controller.signal });
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta?.content === ' from') break;
      }
      controller.abort();
      const rec = last();
      await waitFor(() => (rec.clientClosedEarly ? true : undefined));
      expect(rec.framesSent).toBeLessThan(5);
      const log = await waitFor(async () => (await consumeLogs(h, c.userId))[0]);
      expect(Number(log.completion_tokens)).toBeGreaterThan(0);
      expect(Number(log.completion_tokens)).toBeLessThan(5);
    } finally {
      sp.setFrameDelay(0);
    }
  });
});

describe('Spark keys, signatures and the console', () => {
  it('refuses a key that is not APPID|APISecret|APIKey on save, showing the format', async () => {
    const res = await h.root.post('/api/channel/', { type: 18, name: 'bad-spark', key: 'appid|secret', models: V35, group: 'default' });
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('APPID|APISecret|APIKey');
  });

  it('a wrong APISecret fails the signed upgrade (401): a channel error, the channel disabled, nothing charged', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const [appId, , apiKey] = FAKE_SPARK_KEY.split('|');
    const badId = await addChannel(h.root, { type: 18, key: `${appId}|wrongSecretValue0000|${apiKey}`, base_url: sp.url, models: 'spark-lite' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'spark-lite', messages }).catch((e: unknown) => e)) as { status: number };
    expect(last().path).toBe('/v1.1/chat');
    expect(last().rejected).toEqual({ status: 401, message: 'HMAC signature does not match' });
    expect(last().frame).toBeUndefined();
    expect(err.status).toBe(401);
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', badId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('HMAC signature does not match');
  });

  it('the channel test button signs, connects and reads the answer', async () => {
    const tested = await h.root.get(`/api/channel/test/${chId}`);
    expect(tested.body).toMatchObject({ success: true, message: '' });
    expect(last().path).toBe('/v3.5/chat');
  });
});
