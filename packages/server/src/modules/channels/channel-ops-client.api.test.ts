import { FAKE_BAIDU_KEY, startFakeBaidu, type FakeBaidu } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureListener, type CaptureListener } from '../../test-support/capture-listener.js';
import { addCaller, addChannel, priceModels, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

/**
 * The channel test, balance and model list use the relay's upstream client (relay/upstream-client.ts):
 * a refused cached credential is replaced and the probe made once more, and a failing upstream
 * is read the way the relay reads it, so root sees the message a relayed caller gets.
 */
let h: RelayHarness;
let baidu: FakeBaidu;
let upstream: CaptureListener;

beforeAll(async () => {
  h = await startRelayHarness();
  baidu = await startFakeBaidu();
  upstream = await startCaptureListener();
  await priceModels(h, ['ERNIE-Speed-8K', 'gpt-4o-mini']);
});
afterAll(async () => {
  await upstream?.close();
  await baidu?.close();
  await h?.close();
});

const modelCalls = () => baidu.requests.filter((r) => r.kind !== 'token');

describe('channel probes through the upstream client', () => {
  it('a Baidu channel test whose cached token expired succeeds after exactly one refresh', async () => {
    const id = await addChannel(h.root, { type: 15, key: FAKE_BAIDU_KEY, base_url: baidu.url, models: 'ERNIE-Speed-8K', test_model: 'ERNIE-Speed-8K' });
    expect((await h.root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: true, message: '' });
    baidu.expireTokens();
    const issued = baidu.tokensIssued();
    const calls = modelCalls().length;
    expect((await h.root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: true, message: '' });
    expect(baidu.tokensIssued()).toBe(issued + 1);
    expect(modelCalls().slice(calls).map((r) => r.rejected?.code)).toEqual([111, undefined]);
  });

  it('a Baidu token refused again after the refresh fails the test with the relay\'s reading, once retried', async () => {
    const id = await addChannel(h.root, { type: 15, key: FAKE_BAIDU_KEY, base_url: baidu.url, models: 'ERNIE-Speed-8K', test_model: 'ERNIE-Speed-8K' });
    await h.root.get(`/api/channel/test/${id}`);
    const calls = modelCalls().length;
    baidu.setFault({ errorCode: 110, message: 'Access token invalid or no longer valid', times: 2 });
    const r = await h.root.get(`/api/channel/test/${id}`);
    baidu.setFault(null);
    expect(modelCalls().slice(calls).map((x) => x.rejected?.code)).toEqual([110, 110]);
    expect(r.body).toMatchObject({ success: false, message: 'The upstream answered with an unexpected response: HTTP 200: error object (Access token invalid or no longer valid)' });
  });

  it('an HTTP-200 error body gives root the message a relayed caller gets', async () => {
    const id = await addChannel(h.root, { type: 15, key: FAKE_BAIDU_KEY, base_url: baidu.url, models: 'ERNIE-Speed-8K', test_model: 'ERNIE-Speed-8K' });
    await h.root.get(`/api/channel/test/${id}`);
    const c = await addCaller(h);
    baidu.setFault({ errorCode: 336000, message: 'Internal error', times: 1 });
    const tested = await h.root.get(`/api/channel/test/${id}`);
    baidu.setFault({ errorCode: 336000, message: 'Internal error', times: 10 });
    const relayed = (await c.client.chat.completions.create({ model: 'ERNIE-Speed-8K', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as { status: number; error: { message: string } };
    baidu.setFault(null);
    // Baidu's code 336000 (internal error) arrives in a 200; its code table names it a 500.
    expect(relayed.status).toBe(500);
    const words = relayed.error.message.replace(/ \(request id: .*\)$/, '');
    expect(words).toBe('Internal error');
    expect(tested.body).toMatchObject({ success: false, message: `The upstream answered with an unexpected response: HTTP 200: error object (${words})` });
  });

  it('an error status gives the test and the balance the relay\'s reading of it; the model list names the status', async () => {
    const id = await addChannel(h.root, { base_url: upstream.url, key: 'sk-upstream-key-1234', models: 'gpt-4o-mini' });
    upstream.answer({ status: 503, body: JSON.stringify({ error: { message: 'The engine is currently overloaded', type: 'server_error', param: null, code: null } }), contentType: 'application/json' });
    const c = await addCaller(h);
    const relayed = (await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as { status: number; error: { message: string } };
    expect(relayed.status).toBe(503);
    const words = relayed.error.message.replace(/ \(request id: .*\)$/, '');
    expect(words).toBe('The engine is currently overloaded');
    expect((await h.root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: `The upstream answered with an error status: HTTP 503 (${words})` });
    expect((await h.root.get(`/api/channel/update_balance/${id}`)).body).toEqual({ success: false, message: `The upstream answered with an error status: HTTP 503 (${words})`, balance: 0 });
    expect((await h.root.get(`/api/channel/fetch_models/${id}`)).body).toEqual({ success: false, message: 'Failed to fetch the model list: HTTP 503' });
  });

  it('the channel\'s status code mapping applies to the test as to the relay, the status an admin is told stays the upstream\'s', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    // 403 is a dead-credential status only once mapped to 401: the test-all run then disables the channel, as the relay would.
    const id = await addChannel(h.root, { base_url: upstream.url, key: 'sk-upstream-key-5678', models: 'gpt-4o-mini', status_code_mapping: JSON.stringify({ '403': '401' }) });
    upstream.answer({ status: 403, body: JSON.stringify({ error: { message: 'Country, region, or territory not supported', type: 'request_forbidden', param: null, code: 'unsupported_country_region_territory' } }), contentType: 'application/json' });
    expect((await h.root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: 'The upstream answered with an error status: HTTP 403 (Country, region, or territory not supported)' });
    await h.server.ctx.db.db.deleteFrom('channels').where('id', '!=', id).execute();
    expect(await h.server.ctx.channelOps.runTestAll()).toEqual({ tested: 1, disabled: 1, enabled: 0 });
    const row = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.status)).toBe(3);
    expect(JSON.parse(row.other_info).status_reason).toBe('Country, region, or territory not supported');
  });
});
