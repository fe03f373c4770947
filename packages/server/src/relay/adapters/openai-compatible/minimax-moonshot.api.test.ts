import { FAKE_VENDOR_KEY, FAKE_VENDOR_TEXT, startFakeVendor, vendorPromptTokens, type FakeVendor } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countText } from '../../billing/token-counter.js';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * MiniMax (35), Moonshot (25) and FastGPT (22) through their vendor fakes, the official SDK as
 * caller: MiniMax's v2 path and its HTTP-200 `base_resp` failures (classified, never charged),
 * Moonshot's usage inside the final choice, FastGPT's `detail` events; exact charges.
 */
let h: RelayHarness;
let mm: FakeVendor;
let ms: FakeVendor;
let fg: FakeVendor;
let mmId = 0;
const MM = 'abab6.5s-chat';
const MS = 'moonshot-v1-8k';
const FG = 'fastgpt-app';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

beforeAll(async () => {
  h = await startRelayHarness();
  [mm, ms, fg] = await Promise.all([startFakeVendor('minimax'), startFakeVendor('moonshot'), startFakeVendor('fastgpt')]);
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [MM]: 2, [MS]: 1.5, [FG]: 1, 'abab5.5-chat': 1 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [MM]: 3, [MS]: 2 }));
  await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
  mmId = await addChannel(h.root, { type: 35, key: FAKE_VENDOR_KEY, base_url: mm.url, models: MM });
  await addChannel(h.root, { type: 25, key: FAKE_VENDOR_KEY, base_url: ms.url, models: MS });
  await addChannel(h.root, { type: 22, key: FAKE_VENDOR_KEY, base_url: `${fg.url}/api/openapi`, models: FG });
});
afterAll(async () => {
  await Promise.all([mm.close(), ms.close(), fg.close()]);
  await h.close();
});

const lastBody = (f: FakeVendor) => f.requests.at(-1)!.body as Record<string, unknown>;
const charge = (prompt: number, completion: number, modelRatio: number, completionRatio: number) => expectedCharge({ modelRatio, completionRatio }, { prompt, completion });

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

async function streamText(c: TestCaller, model: string, extra: Record<string, unknown> = {}) {
  let text = '';
  let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
  const stream = await c.client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true }, ...extra } as never);
  for await (const chunk of stream as unknown as AsyncIterable<{ choices: Array<{ delta?: { content?: string | null } }>; usage?: { prompt_tokens: number; completion_tokens: number } | null }>) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, usage };
}

describe('MiniMax', () => {
  it('chat and stream on /v1/text/chatcompletion_v2, the upstream usage billed exactly', async () => {
    const c = await addCaller(h);
    const cost = await spent(c, () => c.client.chat.completions.create({ model: MM, messages }));
    expect(mm.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/text/chatcompletion_v2' });
    expect(mm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${FAKE_VENDOR_KEY}`);
    const prompt = vendorPromptTokens(lastBody(mm));
    expect(cost).toBe(charge(prompt, 5, 2, 3));
    let s: Awaited<ReturnType<typeof streamText>> | undefined;
    const streamed = await spent(c, async () => {
      s = await streamText(c, MM);
    });
    expect(lastBody(mm).stream_options).toBeUndefined();
    expect(s!.text).toBe(FAKE_VENDOR_TEXT);
    expect(s!.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(streamed).toBe(charge(prompt, 5, 2, 3));
    expect((await h.root.get(`/api/channel/test/${mmId}`)).body).toMatchObject({ success: true });
  });

  it('a 200 with base_resp 1002 is a 429 (retried, never charged), in JSON and in the stream', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    mm.setBaseResp({ code: 1002, msg: 'rate limit exceeded(RPM)' });
    const err = (await c.client.chat.completions.create({ model: MM, messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(429);
    mm.setBaseResp({ code: 1002, msg: 'rate limit exceeded(RPM)', inStream: true });
    const serr = (await streamText(c, MM).catch((e: unknown) => e)) as { status: number; message: string };
    expect(serr.status).toBe(429);
    mm.setBaseResp({ code: 2013, msg: 'invalid params, temperature out of range' });
    const bad = (await c.client.chat.completions.create({ model: MM, messages }).catch((e: unknown) => e)) as { status: number; message: string; code: string };
    expect(bad).toMatchObject({ status: 400, code: '2013' });
    expect(bad.message).toContain('invalid params');
    mm.setBaseResp(null);
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select('status').where('id', '=', mmId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(1);
  });

  it('base_resp 1004 (the key is refused) disables the channel; nothing is charged', async () => {
    const badId = await addChannel(h.root, { type: 35, key: 'sk-revoked-minimax-key', base_url: mm.url, models: 'abab5.5-chat', priority: 10 });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: 'abab5.5-chat', messages, stream: true }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status, err.message).toBe(401);
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', badId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('login fail');
    // The console's test button reads the same base_resp as a failure.
    const tested = await h.root.get(`/api/channel/test/${badId}`);
    expect(tested.body.success).toBe(false);
    expect(tested.body.message).toContain('login fail');
  });
});

describe('Moonshot', () => {
  it('the stream usage inside the final choice is billed and handed to the caller', async () => {
    const c = await addCaller(h);
    let s: Awaited<ReturnType<typeof streamText>> | undefined;
    const cost = await spent(c, async () => {
      s = await streamText(c, MS);
    });
    const prompt = vendorPromptTokens(lastBody(ms));
    expect(lastBody(ms).stream_options).toBeUndefined();
    expect(s!.text).toBe(FAKE_VENDOR_TEXT);
    expect(s!.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(charge(prompt, 5, 1.5, 2));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: MS, prompt_tokens: prompt, completion_tokens: 5, quota: charge(prompt, 5, 1.5, 2) });
  });
});

describe('FastGPT', () => {
  it('detail streams: only answer events reach the caller, as plain chunks; flow events are dropped', async () => {
    const c = await addCaller(h);
    let s: Awaited<ReturnType<typeof streamText>> | undefined;
    const cost = await spent(c, async () => {
      s = await streamText(c, FG, { detail: true, chatId: 'chat-1' });
    });
    expect(fg.requests.at(-1)).toMatchObject({ path: '/api/openapi/v1/chat/completions' });
    expect(lastBody(fg)).toMatchObject({ detail: true, chatId: 'chat-1' });
    expect(s!.text).toBe(FAKE_VENDOR_TEXT);
    // FastGPT reports no usage in streams: the completion is counted from the answer actually forwarded.
    const log = (await consumeLogs(h, c.userId))[0]!;
    expect(log.completion_tokens).toBe(await countText(FG, FAKE_VENDOR_TEXT));
    expect(s!.usage).toMatchObject({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens });
    expect(cost).toBe(charge(Number(log.prompt_tokens), Number(log.completion_tokens), 1, 1));
  });

  it('the raw SSE the caller gets carries no flowResponses or flowNodeStatus event', async () => {
    const c = await addCaller(h);
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: FG, messages, stream: true, detail: true }),
    });
    const raw = await res.text();
    expect(raw).not.toMatch(/flowResponses|flowNodeStatus|event:/);
    expect(raw.trim().endsWith('data: [DONE]')).toBe(true);
  });
});
