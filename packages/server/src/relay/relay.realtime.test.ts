import { once } from 'node:events';
import { connect as netConnect } from 'node:net';
import { OpenAIRealtimeWS } from 'openai/beta/realtime/ws';
import { REALTIME_AUDIO_BYTES_PER_TOKEN, startFakeRealtime, type FakeRealtime } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

const MODEL = 'gpt-4o-realtime-preview';
let h: RelayHarness;
let rt: FakeRealtime;


type Event = Record<string, unknown> & { type: string };

/** A `ws` client with an ordered inbox: `next(type)` waits for the next event of that type. */
class Client {
  readonly events: Event[] = [];
  private read = 0;
  private waiters: Array<() => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.events.push(JSON.parse(String(data)) as Event);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = once(ws, 'close').then(([code, reason]) => ({ code: code as number, reason: String(reason) }));
  }

  async next(type: string): Promise<Event> {
    for (;;) {
      const i = this.events.findIndex((e, idx) => idx >= this.read && e.type === type);
      if (i >= 0) {
        this.read = i + 1;
        return this.events[i]!;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  send(event: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(event));
  }
}

function wsUrl(model = MODEL): string {
  return `${h.server.url.replace(/^http/, 'ws')}/v1/realtime?model=${encodeURIComponent(model)}`;
}

async function connect(c: Pick<TestCaller, 'key'>, model = MODEL): Promise<Client> {
  const ws = new WebSocket(wsUrl(model), { headers: { authorization: `Bearer sk-${c.key}` } });
  const client = new Client(ws);
  await once(ws, 'open');
  return client;
}

/** The HTTP answer to an upgrade that was refused. */
async function refused(headers: Record<string, string>, model = MODEL): Promise<{ status: number; body: { error: Record<string, unknown> } }> {
  const ws = new WebSocket(wsUrl(model), { headers });
  ws.on('error', () => undefined);
  const [, res] = (await once(ws, 'unexpected-response')) as [unknown, import('node:http').IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  ws.terminate();
  return { status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: Record<string, unknown> } };
}

/** Waits until every hold of the session was settled or released (the release runs after the sockets closed). */
async function settledLedger(): Promise<void> {
  const open = async () => (await h.server.ctx.db.db.selectFrom('reservations').select('request_id').execute()).length;
  for (let i = 0; i < 150 && (await open()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await open()).toBe(0);
  expect(h.server.ctx.relay.ledger.openCount).toBe(0);
}

/**
 * gpt-4o-realtime-preview: ModelRatio 2.5, completion ratio 4 (gpt-4o*), cache ratio 0.5,
 * audio ratio 20 and audio completion ratio 2 (reference §5.1), group ratio 1.
 */
function expectedQuota(u: { input_tokens: number; output_tokens: number; input_token_details: { cached_tokens: number; audio_tokens: number }; output_token_details: { audio_tokens: number } }): number {
  const cached = u.input_token_details.cached_tokens;
  const audioIn = u.input_token_details.audio_tokens;
  const audioOut = u.output_token_details.audio_tokens;
  const textIn = u.input_tokens - cached - audioIn;
  const textOut = u.output_tokens - audioOut;
  const text = textIn + cached * 0.5 + Math.round(textOut * 4);
  const audio = audioIn || audioOut ? Math.round(audioIn * 20 + audioOut * 20 * 2) : 0;
  return Math.round((text + audio) * 2.5);
}

type RtUsage = Parameters<typeof expectedQuota>[0];

async function textTurn(client: Client, text: string): Promise<RtUsage> {
  client.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
  await client.next('conversation.item.created');
  client.send({ type: 'response.create', response: { modalities: ['text'] } });
  await client.next('response.created');
  const done = await client.next('response.done');
  return (done.response as { usage: RtUsage }).usage;
}

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
    await settledLedger();

    const q1 = expectedQuota(u1);
    const q2 = expectedQuota(u2.usage);
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
    await settledLedger();
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expectedQuota(usage));
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([expectedQuota(usage)]);
  });

  it('accepts the token in the browser subprotocol list and answers with `realtime`', async () => {
    const c = await addCaller(h);
    const ws = new WebSocket(wsUrl(), ['realtime', `openai-insecure-api-key.sk-${c.key}`, 'openai-beta.realtime-v1']);
    const client = new Client(ws);
    await once(ws, 'open');
    expect(ws.protocol).toBe('realtime');
    await client.next('session.created');
    ws.close();
    await client.closed;
    await settledLedger();
  });

  it('Azure channels: /openai/realtime?api-version=&deployment= with api-key', async () => {
    const c = await addCaller(h, { group: 'vip' });
    const before = await balances(h, c);
    const client = await connect(c);
    const u = await textTurn(client, 'Hi there');
    client.ws.close();
    await client.closed;
    await settledLedger();
    const upstream = rt.connections.at(-1)!;
    expect(upstream.path).toBe('/openai/realtime');
    expect(upstream.query).toEqual({ 'api-version': '2024-10-01-preview', deployment: 'gpt-4o-realtime-preview' });
    expect(upstream.headers['api-key']).toBe('azure-key');
    expect(upstream.headers.authorization).toBeUndefined();
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expectedQuota(u));
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([expectedQuota(u)]);
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

  it('upstream closing mid-response: the client is closed with its code, the unfinished response costs nothing', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    rt.setCloseMidResponse(1);
    try {
      const client = await connect(c);
      client.send({ type: 'response.create', response: { modalities: ['text'] } });
      await client.next('response.created');
      expect(await client.closed).toEqual({ code: 1011, reason: 'upstream failure' });
    } finally {
      rt.setCloseMidResponse(null);
    }
    await settledLedger();
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('quota running out mid-session: what is left is charged, then an error event and the socket closes', async () => {
    const c = await addCaller(h, { quota: 100 });
    const client = await connect(c);
    const u1 = await textTurn(client, 'Tell me a joke please');
    expect(expectedQuota(u1)).toBe(73);
    await textTurn(client, 'And another one');
    const error = await client.next('error');
    expect(error.event_id).toMatch(/^evt_/);
    expect(error.error).toMatchObject({ type: 'insufficient_quota' });
    expect((await client.closed).code).toBe(1008);
    await settledLedger();
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
