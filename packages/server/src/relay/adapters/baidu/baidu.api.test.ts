import { baiduPromptTokens, FAKE_BAIDU_KEY, startFakeBaidu, type FakeBaidu } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * Baidu ERNIE (15): the OAuth access token (cached per channel, one fetch in flight, refreshed once
 * on 110/111), model → endpoint, chat, stream and embeddings through the Baidu fake with the
 * official SDK as caller; exact charges.
 */
let h: RelayHarness;
let baidu: FakeBaidu;
let chId = 0;
const ERNIE = 'ERNIE-4.0-8K';
const SPEED = 'ERNIE-Speed-8K';
const EMBED = 'Embedding-V1';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const TEXT = 'Hello from the fake ERNIE';

beforeAll(async () => {
  h = await startRelayHarness();
  baidu = await startFakeBaidu();
  const o = h.server.ctx.options;
  await o.set('ModelRatio', JSON.stringify({ [ERNIE]: 3, [SPEED]: 1, [EMBED]: 0.5, 'ERNIE-Lite-8K': 1, 'ERNIE-Tiny-8K': 1, 'ERNIE-3.5-8K': 1 }));
  await o.set('CompletionRatio', JSON.stringify({ [ERNIE]: 2 }));
  chId = await addChannel(h.root, { type: 15, key: FAKE_BAIDU_KEY, base_url: baidu.url, models: `${ERNIE},${SPEED},${EMBED}` });
});
afterAll(async () => {
  await baidu.close();
  await h.close();
});

const modelCalls = () => baidu.requests.filter((r) => r.kind !== 'token');
const last = () => modelCalls().at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;
const charge = (prompt: number, completion: number, modelRatio: number, completionRatio: number) => expectedCharge({ modelRatio, completionRatio }, { prompt, completion });

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

describe('Baidu ERNIE', () => {
  it('chat: one token exchange, the model\'s endpoint, the ERNIE body, exact charge', async () => {
    const c = await addCaller(h);
    const issued = baidu.tokensIssued();
    let res: Awaited<ReturnType<typeof c.client.chat.completions.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: ERNIE, messages: [{ role: 'system', content: 'Be brief' }, ...messages], temperature: 0.5, max_tokens: 40, stop: 'END', user: 'user-7', frequency_penalty: 1 });
    });
    const token = baidu.requests.filter((r) => r.kind === 'token').at(-1)!;
    expect(token.query).toEqual({ grant_type: 'client_credentials', client_id: 'fakeBaiduApiKey01', client_secret: 'fakeBaiduSecretKey01' });
    expect(baidu.tokensIssued()).toBe(issued + 1);
    expect(last().path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro');
    expect(last().query.access_token).toMatch(/^24\./);
    expect(lastBody()).toEqual({ messages, system: 'Be brief', temperature: 0.5, penalty_score: 1.5, max_output_tokens: 40, stop: ['END'], user_id: 'user-7' });
    const prompt = baiduPromptTokens(lastBody());
    const r = res as { choices: Array<{ message: { content: string }; finish_reason: string }>; usage: unknown };
    expect(r.choices[0]).toMatchObject({ message: { content: TEXT }, finish_reason: 'stop' });
    expect(r.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5, 3, 2));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: ERNIE, channel_id: chId, prompt_tokens: prompt, completion_tokens: 5, quota: charge(prompt, 5, 3, 2) });
    // The token is reused.
    await c.client.chat.completions.create({ model: SPEED, messages });
    expect(baidu.tokensIssued()).toBe(issued + 1);
    expect(last().path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed');
  });

  it('stream: frames become chunks, the is_end frame\'s usage is billed; Anthropic callers are served', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    let finish: string | null | undefined;
    const cost = await spent(c, async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: ERNIE, messages, stream: true, stream_options: { include_usage: true } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(text).toBe(TEXT);
    expect(finish).toBe('stop');
    expect(lastBody()).toEqual({ messages, stream: true });
    const prompt = baiduPromptTokens(lastBody());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5, 3, 2));
    let streamed = '';
    for await (const ev of await anthropicClient(h, c).messages.create({ model: ERNIE, max_tokens: 30, messages, stream: true })) {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') streamed += ev.delta.text;
    }
    expect(streamed).toBe(TEXT);
    expect(lastBody()).toEqual({ messages, max_output_tokens: 30, stream: true });
  });

  it('embeddings: the embeddings endpoint, {input:[…]}, exact charge', async () => {
    const c = await addCaller(h);
    let data: unknown[] = [];
    const cost = await spent(c, async () => {
      data = (await c.client.embeddings.create({ model: EMBED, input: 'alpha beta gamma' })).data;
    });
    expect(last().path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1');
    expect(lastBody()).toEqual({ input: ['alpha beta gamma'] });
    expect(data).toHaveLength(1);
    expect(cost).toBe(charge(3, 0, 0.5, 1));
  });

  it('concurrent requests of a new channel share one token exchange', async () => {
    const id = await addChannel(h.root, { type: 15, key: FAKE_BAIDU_KEY, base_url: baidu.url, models: 'ERNIE-Lite-8K' });
    const c = await addCaller(h);
    const issued = baidu.tokensIssued();
    const replies = await Promise.all(Array.from({ length: 5 }, () => c.client.chat.completions.create({ model: 'ERNIE-Lite-8K', messages })));
    expect(replies.every((r) => r.choices[0]!.message.content === TEXT)).toBe(true);
    expect(baidu.tokensIssued()).toBe(issued + 1);
    expect((await consumeLogs(h, c.userId)).every((l) => Number(l.channel_id) === id)).toBe(true);
  });

  it('an expired token (111) is refreshed once and the request retried on the same channel, charged once', async () => {
    const c = await addCaller(h);
    await c.client.chat.completions.create({ model: SPEED, messages });
    baidu.expireTokens();
    const issued = baidu.tokensIssued();
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: SPEED, messages });
    expect(res.choices[0]!.message.content).toBe(TEXT);
    expect(baidu.tokensIssued()).toBe(issued + 1);
    expect(modelCalls().slice(-2).map((r) => r.rejected?.code)).toEqual([111, undefined]);
    const prompt = baiduPromptTokens(lastBody());
    // ERNIE-Speed's completion ratio is the fixed 2 of the pricing rules.
    expect(before.quota - (await balances(h, c)).quota).toBe(charge(prompt, 5, 1, 2));
    expect(await consumeLogs(h, c.userId)).toHaveLength(2);
  });

  it('a token refused again after the refresh is reported as a channel error, nothing charged', async () => {
    const c = await addCaller(h);
    const issued = baidu.tokensIssued();
    baidu.setFault({ errorCode: 110, message: 'Access token invalid or no longer valid', times: 2 });
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: SPEED, messages }).catch((e: unknown) => e)) as { status: number; message: string };
    baidu.setFault(null);
    // The refusal came in a 200; its code (110) names the status, and the message is the relay's own (no upstream detail about the key).
    expect(err.status).toBe(401);
    expect(err.message).toContain("the upstream rejected the channel's credentials (status 401)");
    expect(err.message).not.toContain('Access token invalid');
    expect(baidu.tokensIssued()).toBe(issued + 1);
    expect(modelCalls().slice(-2).map((r) => r.rejected?.code)).toEqual([110, 110]);
    expect(await balances(h, c)).toEqual(before);
  });

  it('refuses turns ERNIE cannot take with a 400 naming the rule, before calling Baidu', async () => {
    const c = await addCaller(h);
    const calls = modelCalls().length;
    const err = (await c.client.chat.completions.create({ model: ERNIE, messages: [...messages, { role: 'assistant', content: 'hi' }] }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(400);
    expect(err.message).toContain("the last turn to be the user's");
    expect(modelCalls()).toHaveLength(calls);
  });
});

describe('Baidu keys and the console', () => {
  it('refuses a key that is not APIKey|SecretKey on save, naming the expected format', async () => {
    const res = await h.root.post('/api/channel/', { type: 15, name: 'bad-baidu', key: 'just-one-part', models: ERNIE, group: 'default' });
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('APIKey|SecretKey');
  });

  it('a refused client secret is a channel error carrying Baidu\'s words; the channel is disabled; the test button reports it', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const badId = await addChannel(h.root, { type: 15, key: 'fakeBaiduApiKey01|wrongSecret', base_url: baidu.url, models: 'ERNIE-Tiny-8K' });
    const tested = await h.root.get(`/api/channel/test/${badId}`);
    expect(tested.body.success).toBe(false);
    expect(tested.body.message).toContain('Client authentication failed');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'ERNIE-Tiny-8K', messages }).catch((e: unknown) => e)) as { status: number };
    expect(err.status).toBe(401);
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', badId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('invalid_client: Client authentication failed');
  });

  it('the channel test button works through the token exchange', async () => {
    const tested = await h.root.get(`/api/channel/test/${chId}`);
    expect(tested.body).toMatchObject({ success: true, message: '' });
  });
});
