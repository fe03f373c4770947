import { once } from 'node:events';
import { connect as netConnect } from 'node:net';
import { OpenAIRealtimeWS } from 'openai/beta/realtime/ws';
import { REALTIME_AUDIO_BYTES_PER_TOKEN, startFakeRealtime, type FakeRealtime } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  connectRealtime,
  expectedRealtimeQuota,
  RealtimeClient,
  realtimeUrl,
  refusedUpgrade,
  REALTIME_MODEL as MODEL,
  settledLedger as settled,
  textTurn,
  type RtUsage,
} from '../test-support/realtime-client.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

let h: RelayHarness;
let rt: FakeRealtime;

const connect = (c: Pick<TestCaller, 'key'>, model = MODEL) => connectRealtime(h, c, model);
const refused = (headers: Record<string, string>, model = MODEL) => refusedUpgrade(h, headers, model);
const settledLedger = (outcomes: { userId: number; count: number }) => settled(h, outcomes);

describe.each(testDbKinds())('GET /v1/realtime (WebSocket relay) on %s', (kind) => {
  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    rt = await startFakeRealtime({ apiKeys: ['sk-upstream', 'azure-key'] });
    await addChannel(h.root, { name: 'openai-rt', base_url: rt.url, models: MODEL });
    // Azure serves the `vip` group only, so each test knows which channel answers.
    await addChannel(h.root, { name: 'azure-rt', type: 3, key: 'azure-key', base_url: rt.url, other: '2024-10-01-preview', models: MODEL, group: 'vip' });
  });
  afterAll(async () => {
    await rt.close();
    await h.close();
  });

  it('relays a session both ways and bills each response.done (text, audio, cached) on user, token and log', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const client = await connect(c);
    expect(client.ws.protocol).toBe('');
    await client.next('session.created');
    client.send({ type: 'session.update', session: { instructions: 'Be brief.' } });
    expect(((await client.next('session.updated')).session as Record<string, unknown>).instructions).toBe('Be brief.');
    const u1 = await textTurn(client, 'Tell me a joke please');
    // The second response reads the conversation again (the first part from the cache) plus 200 ms of audio, and answers in audio.
    client.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(2 * REALTIME_AUDIO_BYTES_PER_TOKEN, 3).toString('base64') });
    client.send({ type: 'input_audio_buffer.commit' });
    await client.next('input_audio_buffer.committed');
    client.send({ type: 'response.create', response: { modalities: ['audio', 'text'] } });
    const transcript = await client.next('response.audio_transcript.delta');
    expect(transcript.delta).toBe('Hello');
    const u2 = (await client.next('response.done')).response as { usage: RtUsage };
    expect(u2.usage.input_token_details).toMatchObject({ cached_tokens: 5, audio_tokens: 2 });
    expect(u2.usage.output_token_details.audio_tokens).toBe(30);
    client.ws.close(1000, 'bye');
    await client.closed;
    await settledLedger({ userId: c.userId, count: 3 });

    const q1 = expectedRealtimeQuota(u1);
    const q2 = expectedRealtimeQuota(u2.usage);
    expect([q1, q2]).toEqual([73, 3181]);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(q1 + q2);
    expect(before.remain - after.remain).toBe(q1 + q2);
    expect(after.userUsed).toBe(q1 + q2);
    expect(after.tokenUsed).toBe(q1 + q2);
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => Number(l.quota))).toEqual([q1, q2]);
    expect(logs.map((l) => [Number(l.prompt_tokens), Number(l.completion_tokens)])).toEqual([
      [u1.input_tokens, u1.output_tokens],
      [u2.usage.input_tokens, u2.usage.output_tokens],
    ]);
    expect(logs[0]!.model_name).toBe(MODEL);
    expect(JSON.parse(logs[1]!.other)).toMatchObject({ ws: true, audio: true, audio_input: 2, audio_output: 30, audio_ratio: 20, audio_completion_ratio: 2, cache_tokens: 5 });

    const upstream = rt.connections.at(-1)!;
    expect(upstream.path).toBe('/v1/realtime');
    expect(upstream.query.model).toBe(MODEL);
    expect(upstream.headers.authorization).toBe('Bearer sk-upstream');
    expect(upstream.headers['openai-beta']).toBe('realtime=v1');
    expect(upstream.received).toEqual(['session.update', 'conversation.item.create', 'response.create', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'response.create']);
    // The gateway closed the upstream socket when its client left.
    for (let i = 0; i < 100 && !upstream.closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(upstream.closed).toEqual({ code: 1000, by: 'client' });
  });

  it('serves the openai SDK realtime client (OpenAIRealtimeWS) and bills its response', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    // The SDK always dials wss://; the test server speaks plain HTTP, so the socket is a plain TCP connection.
    const port = Number(new URL(h.server.url).port);
    const rtc = new OpenAIRealtimeWS({ model: MODEL, options: { createConnection: () => netConnect(port, '127.0.0.1') } }, c.client);
    const created = new Promise((resolve) => rtc.on('session.created', resolve));
    const done = new Promise<{ response: { usage?: unknown } }>((resolve) => rtc.on('response.done', resolve));
    let text = '';
    rtc.on('response.text.delta', (e) => (text += e.delta));
    await created;
    rtc.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] } });
    rtc.send({ type: 'response.create', response: { modalities: ['text'] } });
    const usage = (await done).response.usage as RtUsage;
    expect(text).toBe('Hello from the fake realtime model');
    rtc.close();
    await once(rtc.socket, 'close');
    await settledLedger({ userId: c.userId, count: 2 });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expectedRealtimeQuota(usage));
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([expectedRealtimeQuota(usage)]);
  });

  it('accepts the token in the browser subprotocol list and answers with `realtime`', async () => {
    const c = await addCaller(h);
    const ws = new WebSocket(realtimeUrl(h), ['realtime', `openai-insecure-api-key.sk-${c.key}`, 'openai-beta.realtime-v1']);
    const client = new RealtimeClient(ws);
    await once(ws, 'open');
    expect(ws.protocol).toBe('realtime');
    await client.next('session.created');
    ws.close();
    await client.closed;
    await settledLedger({ userId: c.userId, count: 1 });
  });

  it('Azure channels: /openai/realtime?api-version=&deployment= with api-key', async () => {
    const c = await addCaller(h, { group: 'vip' });
    const before = await balances(h, c);
    const client = await connect(c);
    const u = await textTurn(client, 'Hi there');
    client.ws.close();
    await client.closed;
    await settledLedger({ userId: c.userId, count: 2 });
    const upstream = rt.connections.at(-1)!;
    expect(upstream.path).toBe('/openai/realtime');
    expect(upstream.query).toEqual({ 'api-version': '2024-10-01-preview', deployment: 'gpt-4o-realtime-preview' });
    expect(upstream.headers['api-key']).toBe('azure-key');
    expect(upstream.headers.authorization).toBeUndefined();
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expectedRealtimeQuota(u));
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([expectedRealtimeQuota(u)]);
  });

  it('refuses a wrong token, an unknown model and a plain GET before upgrading; nothing is reserved', async () => {
    const wrong = await refused({ authorization: 'Bearer sk-not-a-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ type: 'new_api_error' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const unknown = await refused({ authorization: `Bearer sk-${c.key}` }, 'gpt-4o-not-a-model');
    expect(unknown.status).toBe(503);
    expect(unknown.body.error.code).toBe('model_not_found');
    const plain = await fetch(`${h.server.url}/v1/realtime?model=${MODEL}`, { headers: { authorization: `Bearer sk-${c.key}` } });
    expect(plain.status).toBe(426);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('upgrade_required');
    expect(await balances(h, c)).toEqual(before);
    expect(h.server.ctx.relay.ledger.openCount).toBe(0);
  });

  it('upstream closing mid-response after output came through: the client gets its code, the response costs at least its hold', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    rt.setCloseMidResponse(1);
    try {
      const client = await connect(c);
      client.send({ type: 'response.create', response: { modalities: ['text'] } });
      expect((await client.next('response.text.delta')).delta).toBe('Hello');
      expect(await client.closed).toEqual({ code: 1011, reason: 'upstream failure' });
    } finally {
      rt.setCloseMidResponse(null);
    }
    await settledLedger({ userId: c.userId, count: 1 });
    // Counted: 1 output token ("Hello"), round(1 × 4) × 2.5 = 10; the hold (PreConsumedQuota 500
    // tokens: round(500 × 4) × 2.5 = 5 000) is the floor, since the input side is unknown.
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(5000);
    expect(before.remain - after.remain).toBe(5000);
    expect(after.tokenUsed).toBe(5000);
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => [Number(l.quota), Number(l.prompt_tokens), Number(l.completion_tokens)])).toEqual([[5000, 0, 1]]);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ ws: true, estimated: true });
  });

  it('upstream closing after response.created but before any output: the hold goes back, nothing is charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    rt.setPauseMidResponse(1, 0);
    try {
      const client = await connect(c);
      client.send({ type: 'response.create', response: { modalities: ['text'] } });
      await client.next('response.created');
      rt.closeAll(1011, 'upstream failure');
      expect(await client.closed).toEqual({ code: 1011, reason: 'upstream failure' });
    } finally {
      rt.setPauseMidResponse(null);
    }
    await settledLedger({ userId: c.userId, count: 1 });
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('quota running out mid-session: what is left is charged, then an error event and the socket closes', async () => {
    const c = await addCaller(h, { quota: 100 });
    const client = await connect(c);
    const u1 = await textTurn(client, 'Tell me a joke please');
    expect(expectedRealtimeQuota(u1)).toBe(73);
    await textTurn(client, 'And another one');
    const error = await client.next('error');
    expect(error.event_id).toMatch(/^evt_/);
    expect(error.error).toMatchObject({ type: 'insufficient_quota' });
    expect((await client.closed).code).toBe(1008);
    await settledLedger({ userId: c.userId, count: 2 });
    const after = await balances(h, c);
    expect(after.quota).toBe(0);
    expect(after.userUsed).toBe(100);
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => Number(l.quota))).toEqual([73, 27]);
    expect(JSON.parse(logs[1]!.other).shortfall).toBeGreaterThan(0);
    const upstream = rt.connections.at(-1)!;
    for (let i = 0; i < 100 && !upstream.closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(upstream.closed?.by).toBe('client');
  });
});
