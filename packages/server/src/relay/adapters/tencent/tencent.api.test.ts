import { FAKE_TENCENT_KEY, hunyuanPromptTokens, startFakeHunyuan, type FakeHunyuan } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * Tencent Hunyuan (23): TC3-signed ChatCompletions through the Hunyuan fake (which recomputes the
 * signature over the bytes it received), the official SDK as caller; exact charges; errors from
 * `Response.Error`.
 */
let h: RelayHarness;
let hy: FakeHunyuan;
let chId = 0;
const MODEL = 'hunyuan-pro';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const TEXT = 'Hello from the fake Hunyuan';

beforeAll(async () => {
  h = await startRelayHarness();
  hy = await startFakeHunyuan();
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [MODEL]: 2, 'hunyuan-lite': 1 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [MODEL]: 3 }));
  chId = await addChannel(h.root, { type: 23, key: FAKE_TENCENT_KEY, base_url: hy.url, models: MODEL });
});
afterAll(async () => {
  await hy.close();
  await h.close();
});

const last = () => hy.requests.at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;
const charge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion });

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

describe('Tencent Hunyuan', () => {
  it('chat: signed TC3 over the final body, the Hunyuan body, exact charge', async () => {
    const c = await addCaller(h);
    let res: Awaited<ReturnType<typeof c.client.chat.completions.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: 'Be brief' }, ...messages], temperature: 0.7, top_p: 0.8, user: 'u-1' });
    });
    expect(last().rejected).toBeUndefined();
    expect(last().headers).toMatchObject({ 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01', 'content-type': 'application/json' });
    expect(last().headers.authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDfakeHunyuanSecretId0001\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/);
    expect(last().headers['x-tc-region']).toBeUndefined();
    expect(lastBody()).toEqual({ Model: MODEL, Messages: [{ Role: 'system', Content: 'Be brief' }, { Role: 'user', Content: 'Hello there friend' }], Stream: false, TopP: 0.8, Temperature: 0.7 });
    const prompt = hunyuanPromptTokens(lastBody());
    const r = res as { choices: Array<{ message: { content: string }; finish_reason: string }>; usage: unknown };
    expect(r.choices[0]).toMatchObject({ message: { content: TEXT }, finish_reason: 'stop' });
    expect(r.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: MODEL, channel_id: chId, prompt_tokens: prompt, completion_tokens: 5, quota: charge(prompt, 5) });
  });

  it('stream: Delta frames without [DONE] become chunks; the finishing frame\'s usage is billed; Anthropic callers are served', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    const cost = await spent(c, async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(text).toBe(TEXT);
    expect(lastBody()).toEqual({ Model: MODEL, Messages: [{ Role: 'user', Content: 'Hello there friend' }], Stream: true });
    const prompt = hunyuanPromptTokens(lastBody());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5));
    let streamed = '';
    for await (const ev of await anthropicClient(h, c).messages.create({ model: MODEL, max_tokens: 30, messages, stream: true })) {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') streamed += ev.delta.text;
    }
    expect(streamed).toBe(TEXT);
  });

  it('Response.Error (HTTP 200) is an error with Tencent\'s code and message; nothing charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: MODEL, messages, temperature: 2.5 }).catch((e: unknown) => e)) as { status: number; message: string; code: string };
    expect(last().rejected).toMatchObject({ code: 'InvalidParameter' });
    expect(err.code).toBe('InvalidParameter');
    expect(err.message).toContain('Temperature must be 2 or less');
    expect(await balances(h, c)).toEqual(before);
  });

  it('refuses turns Hunyuan cannot take with a 400 before calling Tencent', async () => {
    const c = await addCaller(h);
    const calls = hy.requests.length;
    const err = (await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'assistant', content: 'hi' }] }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(400);
    expect(err.message).toContain('alternating user and assistant');
    expect(hy.requests).toHaveLength(calls);
  });
});

describe('Tencent keys and the console', () => {
  it('refuses a key that is not AppId|SecretId|SecretKey on save', async () => {
    const res = await h.root.post('/api/channel/', { type: 23, name: 'bad-hy', key: 'AKIDonly|secret', models: MODEL, group: 'default' });
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('AppId|SecretId|SecretKey');
  });

  it('a wrong SecretKey fails the signature: a channel error, the channel disabled, nothing charged', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const badId = await addChannel(h.root, { type: 23, key: '1300000000|AKIDfakeHunyuanSecretId0001|wrongSecretKey', base_url: hy.url, models: 'hunyuan-lite' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'hunyuan-lite', messages }).catch((e: unknown) => e)) as { status: number };
    expect(last().rejected).toMatchObject({ code: 'AuthFailure.SignatureFailure' });
    // The error came in a 200; its Code names the status, as a non-200 refusal from any upstream would.
    expect(err.status).toBe(401);
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', badId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('The provided credentials could not be validated');
  });

  it('the channel test button signs and calls', async () => {
    const tested = await h.root.get(`/api/channel/test/${chId}`);
    expect(tested.body).toMatchObject({ success: true, message: '' });
  });
});
