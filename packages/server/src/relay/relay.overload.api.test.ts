import { startFakeOpenAI } from '@modelgate/testkit';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../ledger/reconcile.js';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { until } from '../test-support/text.js';

/**
 * Issue 38 item 5: past RELAY_MAX_CONCURRENT relay requests in flight, or while the event loop lags
 * past RELAY_MAX_EVENT_LOOP_LAG_MS, a new relay request is answered 503 with Retry-After, in the
 * caller's format, without being charged or logged; the console API keeps answering.
 */
let h: RelayHarness;
let c: TestCaller;
const client = new Agent();
const MODEL = 'm-overload';

beforeAll(async () => {
  h = await startRelayHarness({ env: { RELAY_MAX_CONCURRENT: '2', RELAY_MAX_EVENT_LOOP_LAG_MS: '200' } });
  await priceModels(h, [MODEL]);
  await addChannel(h.root, { base_url: h.fake.url, models: MODEL });
  c = await addCaller(h);
});
afterAll(async () => {
  // This file's connections go with it; a kept-alive one would hold the server's graceful close.
  await client.destroy();
  await h?.close();
});

function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${h.server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${c.key}`, 'x-api-key': `sk-${c.key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify(body),
    signal,
    dispatcher: client,
  });
}

const chat = { model: MODEL, messages: [{ role: 'user', content: 'hi' }] };

/**
 * Two streams held in flight by an upstream that never answers (its own fake, so the others stay
 * quick); `release` leaves them and closes that upstream, which ends the relay's attempts at once.
 */
async function holdTwo(): Promise<{ release(): Promise<void> }> {
  const guard = h.server.ctx.relay.overload;
  const slow = await startFakeOpenAI({ fault: { delayMs: 60_000 } });
  const model = `m-held-${Date.now().toString(36)}`;
  await priceModels(h, [model]);
  await addChannel(h.root, { base_url: slow.url, models: model });
  const held = [new AbortController(), new AbortController()];
  const pending = held.map((a) => post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hold' }], stream: true }, a.signal).catch(() => null));
  await until(() => guard.active === 2);
  return {
    async release() {
      for (const a of held) a.abort();
      await Promise.all(pending);
      await slow.close();
      await until(() => guard.active === 0);
    },
  };
}


describe('relay overload', () => {
  it('sheds the request past the concurrency limit in each caller format, and serves again once a slot frees', async () => {
    const guard = h.server.ctx.relay.overload;
    const held = await holdTwo();
    const before = await balances(h, c);

    const openai = await post('/v1/chat/completions', chat);
    expect(openai.status).toBe(503);
    expect(openai.headers.get('retry-after')).toBe('1');
    expect(await openai.json()).toEqual({
      error: { message: expect.stringMatching(/^The server is busy: this node is serving as many requests as it can at once/), type: 'new_api_error', param: null, code: 'server_overloaded' },
    });

    const anthropic = await post('/v1/messages', { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    expect(anthropic.status).toBe(503);
    expect(anthropic.headers.get('retry-after')).toBe('1');
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { message: expect.stringMatching(/^The server is busy/) } });

    const gemini = await post(`/v1beta/models/${MODEL}:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    expect(gemini.status).toBe(503);
    expect(await gemini.json()).toMatchObject({ error: { code: 503, message: expect.stringMatching(/^The server is busy/) } });

    // The console API does not pass through the relay's gate.
    const status = await fetch(`${h.server.url}/api/status`, { dispatcher: client });
    await status.arrayBuffer();
    expect(status.status).toBe(200);

    // A caller without a valid key takes no slot; while the node is full it is shed like the rest.
    const anonymous = await fetch(`${h.server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-wrong', 'content-type': 'application/json' }, body: JSON.stringify(chat), dispatcher: client });
    expect(anonymous.status).toBe(503);
    await anonymous.arrayBuffer();
    expect(guard.shed.concurrency).toBe(4);

    // Shed requests cost nothing and leave no log.
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);

    await held.release();
    const served = await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(served.choices[0]!.message.content).toBeTruthy();
    expect(guard.active).toBe(0);
    expect((await reconcile(h.server.ctx.db.db)).ok).toBe(true);
  });

  it('sheds while the event loop lags, then serves again', async () => {
    const guard = h.server.ctx.relay.overload;
    // Block this process (the server runs in it) for longer than the limit, again and again until the
    // request below has been answered: the guard reads the delay every 250 ms and each reading covers
    // only the interval before it, so a single block could be read, and forgotten by the next reading,
    // before a request on a busy machine reaches the guard (CI once waited 20 s for one block's reading).
    const blocker = setInterval(() => {
      const blockUntil = performance.now() + 350;
      while (performance.now() < blockUntil);
    }, 50);
    try {
      await until(() => guard.lagMs > 200);
      const shed = await post('/v1/chat/completions', chat);
      expect(shed.status).toBe(503);
      expect(Number(shed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await shed.json()).toMatchObject({ error: { code: 'server_overloaded', message: expect.stringMatching(/^The server is busy: this node is running behind/) } });
      expect((await fetch(`${h.server.url}/api/status`, { dispatcher: client })).status).toBe(200);
      expect(guard.shed.lag).toBeGreaterThanOrEqual(1);
    } finally {
      clearInterval(blocker);
    }

    await until(() => guard.lagMs < 200);
    const again = await post('/v1/chat/completions', chat);
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    // Refused callers never held a slot: 401s leave the count where it was.
    const refused = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${h.server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-wrong', 'content-type': 'application/json' }, body: JSON.stringify(chat), dispatcher: client })),
    );
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    await until(() => guard.active === 0);
  });

  it('answers in Chinese when the caller asks for it', async () => {
    const held = await holdTwo();
    const zh = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json', 'accept-language': 'zh-CN' },
      body: JSON.stringify(chat),
      dispatcher: client,
    });
    expect(zh.status).toBe(503);
    expect(((await zh.json()) as { error: { message: string } }).error.message).toMatch(/^服务器繁忙/);
    await held.release();
  });
});
