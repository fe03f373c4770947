import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_BAIDU_KEY, startFakeBaidu, type FakeBaidu } from '@modelgate/testkit';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetRefused } from '../modules/channels/upstream-failure.js';
import { UpstreamGuard } from '../net/upstream-guard.js';
import { startCaptureListener, type CaptureListener } from '../test-support/capture-listener.js';
import { adapter as baidu } from './adapters/baidu/adapter.js';
import { adapter as openai } from './adapters/openai/adapter.js';
import type { Adapter, ChannelTarget, UpstreamCall, UpstreamRequest } from './adapters/types.js';
import { createUpstreamAgent } from './upstream.js';
import { exchange, getChain, type ExchangeOptions, type UpstreamPools } from './upstream-client.js';

/**
 * The one upstream client, without a ModelGate server: a loopback listener (or the Baidu fake) is
 * the upstream, the relay's real pools carry the requests, the real adapters sign and read them.
 */
const plainPool = createUpstreamAgent(30, 30);
const guard = new UpstreamGuard();
const guardedPool = createUpstreamAgent(30, 30, guard);
/** The pools, recording which one each request was sent through. */
const chosen: string[] = [];
const pools: UpstreamPools = {
  dispatcherFor(target): Dispatcher {
    chosen.push(target.guard ? 'guarded' : 'plain');
    return target.guard ? guardedPool : plainPool;
  },
};

let listener: CaptureListener;
let slow: Server;
let slowUrl = '';
let fake: FakeBaidu;
let nextChannel = 9000;

beforeAll(async () => {
  listener = await startCaptureListener();
  // Answers headers only after 3 s: undici checks its header timer about once a second, so a 100 ms limit fires within ~1 s.
  slow = createServer((_req, res) => {
    const t = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 3000);
    res.on('close', () => clearTimeout(t));
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  fake = await startFakeBaidu();
});
afterAll(async () => {
  await listener.close();
  slow.closeAllConnections();
  await new Promise<void>((r) => slow.close(() => r()));
  await fake.close();
  await Promise.all([plainPool.close(), guardedPool.close()]);
});

const target = (over: Partial<ChannelTarget>): ChannelTarget => ({ id: nextChannel++, type: 1, key: 'sk-test-key', baseUrl: listener.url, other: '', organization: '', setting: {}, ...over });
const chatCall = (ch: ChannelTarget, model = 'gpt-4o-mini'): UpstreamCall => ({ ch, mode: 'chat', inbound: 'openai-chat', upstream: 'openai-chat', model, stream: false, clientHeaders: {} });
const cx = (model: string) => ({ lang: 'en' as const, model, callerModel: model, clientWantsUsage: false, requestId: 'client-test', stream: false });
const chatBody = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

async function built(adapter: Adapter, call: UpstreamCall): Promise<UpstreamRequest> {
  const body = chatBody(call.model);
  return adapter.buildRequest(call, { body, raw: Buffer.from(JSON.stringify(body)), contentType: 'application/json', callerModel: call.model, cx: cx(call.model) });
}

function options(adapter: Adapter, call: UpstreamCall, over: Partial<ExchangeOptions> = {}): ExchangeOptions {
  return { pools, adapter, call, headers: { 'content-type': 'application/json', accept: 'application/json' }, lang: 'en', ...over };
}

const completion = { id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };

describe('upstream client: one exchange', () => {
  it('sends the signed request through the plain pool of a root-placed channel and reads the JSON reply', async () => {
    listener.answer({ status: 200, body: JSON.stringify(completion), contentType: 'application/json' });
    listener.seen.length = 0;
    chosen.length = 0;
    const call = chatCall(target({}));
    const got = await exchange(await built(openai, call), options(openai, call));
    expect(got).toMatchObject({ ok: true, kind: 'buffered', status: 200, json: completion });
    expect(chosen).toEqual(['plain']);
    expect(listener.seen).toHaveLength(1);
    expect(listener.seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: 'Bearer sk-test-key', 'content-type': 'application/json', accept: 'application/json' } });
    expect(JSON.parse(listener.seen[0]!.body)).toEqual(chatBody('gpt-4o-mini'));
  });

  it('sends a channel no root placed through the guarded pool, which refuses a loopback target before connecting', async () => {
    listener.seen.length = 0;
    chosen.length = 0;
    const call = chatCall(target({ guard }));
    const got = await exchange(await built(openai, call), options(openai, call));
    expect(chosen).toEqual(['guarded']);
    expect(listener.seen).toHaveLength(0);
    expect(got).toMatchObject({ ok: false, stage: 'transport', upstreamStatus: 0, error: { status: 500, code: 'do_request_failed', retryable: true, disablesChannel: false } });
    expect(!got.ok && targetRefused(got.cause)).toBe(true);
  });

  it('reads an error status the adapter way, judged on the channel status mapping', async () => {
    listener.answer({ status: 429, body: JSON.stringify({ error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }), contentType: 'application/json' });
    const call = chatCall(target({}));
    const plain = await exchange(await built(openai, call), options(openai, call));
    expect(plain).toEqual({
      ok: false,
      stage: 'status',
      upstreamStatus: 429,
      text: expect.stringContaining('Rate limit'),
      error: { status: 429, type: 'requests', code: 'rate_limit_exceeded', param: null, message: 'Rate limit reached for requests', retryable: true, disablesChannel: false },
    });
    const mapped = await exchange(await built(openai, call), options(openai, call, { statusMapping: { '429': '400' } }));
    expect(mapped).toMatchObject({ ok: false, stage: 'status', upstreamStatus: 429, error: { status: 400, retryable: false } });
  });

  it('reads a 401 as dead credentials and a 200 carrying an error object as a failure', async () => {
    const call = chatCall(target({}));
    listener.answer({ status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }), contentType: 'application/json' });
    expect(await exchange(await built(openai, call), options(openai, call))).toMatchObject({ ok: false, stage: 'status', error: { status: 401, code: 'invalid_api_key', disablesChannel: true } });
    listener.answer({ status: 200, body: JSON.stringify({ error: { message: 'model overloaded', type: 'server_error', code: null } }), contentType: 'application/json' });
    expect(await exchange(await built(openai, call), options(openai, call))).toMatchObject({ ok: false, stage: 'error-reply', upstreamStatus: 200, error: { status: 500, type: 'server_error', message: 'model overloaded', retryable: true } });
  });

  it('bounds the wait for the first byte and the whole exchange', async () => {
    const call = chatCall(target({ baseUrl: slowUrl }));
    const first = await exchange(await built(openai, call), options(openai, call, { firstByteTimeoutMs: 100 }));
    expect(first).toMatchObject({ ok: false, stage: 'transport', error: { status: 504, code: 'upstream_timeout', message: 'Failed to reach the upstream (first byte timeout)', retryable: true } });
    const whole = await exchange(await built(openai, call), options(openai, call, { timeoutMs: 100 }));
    expect(whole).toMatchObject({ ok: false, stage: 'transport', error: { status: 504, code: 'upstream_timeout', message: 'Failed to reach the upstream (timeout after 0.1s)' } });
    expect(!whole.ok && (whole.cause as Error).name).toBe('TimeoutError');
  });

  it('hands a stream back unread when the caller asks', async () => {
    listener.answer({ status: 200, body: 'data: {"x":1}\n\ndata: [DONE]\n\n', contentType: 'text/event-stream' });
    const call = { ...chatCall(target({})), stream: true };
    const got = await exchange(await built(openai, call), options(openai, call, { unread: (ct) => openai.isStreamReply(ct) }));
    expect(got).toMatchObject({ ok: true, kind: 'unread', status: 200, contentType: 'text/event-stream' });
    let text = '';
    if (got.ok && got.kind === 'unread') for await (const c of got.body) text += c.toString();
    expect(text).toBe('data: {"x":1}\n\ndata: [DONE]\n\n');
  });
});

describe('upstream client: async signing and the stale-credential retry (Baidu)', () => {
  const baiduTarget = () => target({ type: 15, key: FAKE_BAIDU_KEY, baseUrl: fake.url });
  const baiduCall = (ch: ChannelTarget) => chatCall(ch, 'ERNIE-Speed-8K');
  const modelCalls = () => fake.requests.filter((r) => r.kind !== 'token');

  it('signs with an access token fetched once and cached', async () => {
    const call = baiduCall(baiduTarget());
    const issued = fake.tokensIssued();
    for (let i = 0; i < 2; i++) expect(await exchange(await built(baidu, call), options(baidu, call))).toMatchObject({ ok: true, kind: 'buffered', json: { result: 'Hello from the fake ERNIE' } });
    expect(fake.tokensIssued()).toBe(issued + 1);
    expect(modelCalls().at(-1)!.query.access_token).toMatch(/^24\./);
  });

  it('an expired token is dropped and the exchange made exactly once more, with a fresh one', async () => {
    const call = baiduCall(baiduTarget());
    await exchange(await built(baidu, call), options(baidu, call));
    fake.expireTokens();
    const issued = fake.tokensIssued();
    const calls = modelCalls().length;
    const stale: unknown[] = [];
    const got = await exchange(await built(baidu, call), options(baidu, call, { onStaleCredentials: (e) => stale.push(e.code) }));
    expect(got).toMatchObject({ ok: true, kind: 'buffered', json: { result: 'Hello from the fake ERNIE' } });
    expect(stale).toEqual(['111']);
    expect(fake.tokensIssued()).toBe(issued + 1);
    expect(modelCalls().slice(calls).map((r) => r.rejected?.code)).toEqual([111, undefined]);
  });

  it('a token refused again after the refresh is the final error, with nothing left to retry', async () => {
    const call = baiduCall(baiduTarget());
    await exchange(await built(baidu, call), options(baidu, call));
    const calls = modelCalls().length;
    fake.setFault({ errorCode: 110, message: 'Access token invalid or no longer valid', times: 3 });
    const got = await exchange(await built(baidu, call), options(baidu, call));
    fake.setFault(null);
    expect(modelCalls().slice(calls).map((r) => r.rejected?.code)).toEqual([110, 110]);
    // The refusal came in a 200: Baidu's code table names its status (110: the access token, 401).
    expect(got).toMatchObject({ ok: false, stage: 'error-reply', upstreamStatus: 200, error: { status: 401, type: 'baidu_error', code: '110', message: 'Access token invalid or no longer valid', staleCredentials: false } });
  });

  it('a refused token exchange fails at signing with the provider\'s words', async () => {
    const call = baiduCall(target({ type: 15, key: 'fakeBaiduApiKey01|wrongSecret', baseUrl: fake.url }));
    const got = await exchange(await built(baidu, call), options(baidu, call));
    expect(got).toMatchObject({ ok: false, stage: 'sign', error: { status: 401, code: 'access_token_refused', message: 'Baidu access token refused: invalid_client: Client authentication failed', disablesChannel: true } });
  });
});

describe('upstream client: GET chains (model list pages, balance queries)', () => {
  it('follows the pages the adapter names, one GET each', async () => {
    listener.seen.length = 0;
    listener.answer({ status: 200, body: JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model', created: 1, owned_by: 'x' }] }), contentType: 'application/json' });
    const ch = target({});
    const got = await getChain({ pools, adapter: openai, target: ch, lang: 'en', next: (replies) => (replies.length < 3 ? { url: `${listener.url}/v1/models?page=${replies.length}`, headers: { authorization: `Bearer ${ch.key}` } } : undefined) });
    expect(got).toEqual({ ok: true, replies: [1, 2, 3].map(() => ({ object: 'list', data: [{ id: 'm1', object: 'model', created: 1, owned_by: 'x' }] })) });
    expect(listener.seen.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([0, 1, 2].map((i) => ['GET', `/v1/models?page=${i}`, 'Bearer sk-test-key']));
  });

  it('stops at the first failure, normalised, naming the URL; unparsable JSON is its own stage', async () => {
    const ch = target({});
    const next = (replies: readonly unknown[]) => (replies.length ? undefined : { url: `${listener.url}/v1/models`, headers: {} });
    listener.answer({ status: 403, body: JSON.stringify({ error: { message: 'forbidden here', type: 'permission_error', code: null } }), contentType: 'application/json' });
    expect(await getChain({ pools, adapter: openai, target: ch, lang: 'en', next })).toMatchObject({ ok: false, stage: 'status', upstreamStatus: 403, url: `${listener.url}/v1/models`, error: { status: 403, message: 'forbidden here', disablesChannel: true } });
    listener.answer({ status: 200, body: 'not json', contentType: 'text/plain' });
    expect(await getChain({ pools, adapter: openai, target: ch, lang: 'en', next })).toMatchObject({ ok: false, stage: 'not-json', text: 'not json' });
    listener.answer({ status: 200, body: JSON.stringify({ error: { message: 'quota', type: 'insufficient_quota', code: null } }), contentType: 'application/json' });
    expect(await getChain({ pools, adapter: openai, target: ch, lang: 'en', next })).toMatchObject({ ok: false, stage: 'error-reply', error: { type: 'insufficient_quota', disablesChannel: true } });
  });

  it('a GET refused for a stale credential is asked for again and made once more with the fresh one', async () => {
    // An adapter whose cached credential the upstream may refuse (as Baidu's tokens): the refusal drops it.
    let credential = 1;
    const refreshing: Adapter = Object.assign(Object.create(openai) as Adapter, {
      classifyError(status: number, upstreamStatus: number, body: string) {
        const e = openai.classifyError(status, upstreamStatus, body);
        if (e.code !== 'token_expired') return e;
        credential += 1;
        return { ...e, staleCredentials: true };
      },
    });
    const server = createServer((req, res) => {
      const fresh = req.headers.authorization === 'Bearer token-2';
      res.writeHead(fresh ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(fresh ? { balance: 7 } : { error: { message: 'token expired', type: 'invalid_request_error', code: 'token_expired' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/balance`;
    const asked: string[] = [];
    const next = (replies: readonly unknown[]) => {
      if (replies.length) return undefined;
      asked.push(`token-${credential}`);
      return { url, headers: { authorization: `Bearer token-${credential}` } };
    };
    try {
      expect(await getChain({ pools, adapter: refreshing, target: target({}), lang: 'en', next })).toEqual({ ok: true, replies: [{ balance: 7 }] });
      expect(asked).toEqual(['token-1', 'token-2']);
      // Refused again after the refresh: the failure stands, no third request.
      credential = 3;
      asked.length = 0;
      const again = await getChain({ pools, adapter: refreshing, target: target({}), lang: 'en', next });
      expect(asked).toEqual(['token-3', 'token-4']);
      expect(again).toMatchObject({ ok: false, stage: 'status', upstreamStatus: 401, error: { code: 'token_expired', staleCredentials: false } });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
