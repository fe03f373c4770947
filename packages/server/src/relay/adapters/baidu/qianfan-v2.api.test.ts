import { FAKE_QIANFAN_V2_KEY, FAKE_VENDOR_TEXT, startFakeVendor, vendorPromptTokens, type FakeVendor } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * Baidu (15) with a Qianfan v2 API key (`bce-v3/…`): the OpenAI-compatible `/v2/chat/completions`
 * and `/v2/embeddings` with the key as a Bearer token and no OAuth exchange; the official SDK as
 * caller, exact charges; v2's own error body.
 */
let h: RelayHarness;
let qf: FakeVendor;
let chId = 0;
const MODEL = 'ernie-4.0-8k';
const EMBED = 'embedding-v1';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const charge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 3, completionRatio: 2 }, { prompt, completion });

beforeAll(async () => {
  h = await startRelayHarness();
  qf = await startFakeVendor('qianfan');
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [MODEL]: 3, [EMBED]: 0.5, 'ernie-speed-128k': 1 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [MODEL]: 2 }));
  chId = await addChannel(h.root, { type: 15, key: FAKE_QIANFAN_V2_KEY, base_url: qf.url, models: `${MODEL},${EMBED}` });
});
afterAll(async () => {
  await qf.close();
  await h.close();
});

const last = () => qf.requests.at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

describe('Baidu Qianfan v2', () => {
  it('chat: POST /v2/chat/completions, Bearer bce-v3 key, the OpenAI body; exact charge', async () => {
    const c = await addCaller(h);
    let content = '';
    const cost = await spent(c, async () => {
      content = (await c.client.chat.completions.create({ model: MODEL, messages, temperature: 0.5 })).choices[0]!.message.content ?? '';
    });
    expect(qf.requests.every((r) => r.path.startsWith('/v2/'))).toBe(true);
    expect(last()).toMatchObject({ method: 'POST', path: '/v2/chat/completions' });
    expect(last().headers.authorization).toBe(`Bearer ${FAKE_QIANFAN_V2_KEY}`);
    expect(lastBody()).toEqual({ model: MODEL, messages, temperature: 0.5 });
    expect(content).toBe(FAKE_VENDOR_TEXT);
    const prompt = vendorPromptTokens(lastBody());
    expect(cost).toBe(charge(prompt, 5));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ channel_id: chId, prompt_tokens: prompt, completion_tokens: 5 });
  });

  it('stream: the usage chunk is asked for and billed; the caller gets it only when it asked', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: unknown;
    const cost = await spent(c, async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: MODEL, messages, stream: true })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(lastBody().stream_options).toEqual({ include_usage: true });
    expect(text).toBe(FAKE_VENDOR_TEXT);
    expect(usage).toBeUndefined();
    expect(cost).toBe(charge(vendorPromptTokens(lastBody()), 5));
  });

  it('embeddings: POST /v2/embeddings', async () => {
    const c = await addCaller(h);
    const cost = await spent(c, async () => {
      const r = await c.client.embeddings.create({ model: EMBED, input: ['one two three', 'four five'] });
      expect(r.data).toHaveLength(2);
    });
    expect(last()).toMatchObject({ path: '/v2/embeddings' });
    expect(cost).toBe(expectedCharge({ modelRatio: 0.5 }, { prompt: 5 }));
  });

  it('a revoked v2 key: v2`s own error, the channel disabled, nothing charged', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const badId = await addChannel(h.root, { type: 15, key: 'bce-v3/ALTAK-revokedKey/00000000000000000000000000000000', base_url: qf.url, models: 'ernie-speed-128k' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'ernie-speed-128k', messages }).catch((e: unknown) => e)) as { status: number };
    expect(err.status).toBe(401);
    expect(last().rejected?.body).toMatchObject({ error: { code: 'invalid_iam_token' } });
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select('status').where('id', '=', badId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
  });

  it('the key form accepts a bce-v3 key and refuses a malformed one, naming both formats', async () => {
    const res = await h.root.post('/api/channel/', { type: 15, name: 'bad-v2', key: 'bce-v3/only-one-part', models: MODEL, group: 'default' });
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('bce-v3/');
    expect(res.body.message).toContain('APIKey|SecretKey');
  });

  it('the channel test button calls v2', async () => {
    const tested = await h.root.get(`/api/channel/test/${chId}?model=${MODEL}`);
    expect(tested.body).toMatchObject({ success: true });
    expect(last()).toMatchObject({ path: '/v2/chat/completions' });
  });
});
