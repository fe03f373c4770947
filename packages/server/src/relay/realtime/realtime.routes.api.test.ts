import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { realtimeUsage, startFakeRealtime, type FakeRealtime } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectRealtime,
  eventually,
  expectedRealtimeQuota,
  ledgerOutcomes,
  openOrRefused,
  REALTIME_MODEL as MODEL,
  refusedUpgrade,
  settledLedger,
  type RealtimeClient,
} from '../../test-support/realtime-client.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';

/**
 * Issue 29, "realtime frames up to 100 MiB": the client-facing WebSocket server took ws's default
 * 100 MiB frames (eight 95 MB frames grew the server by 1 GB) and a token could open any number
 * of sockets. Frames are now capped at MAX_REQUEST_BODY_MB (1 MiB here) and sockets per token at
 * REALTIME_MAX_SOCKETS_PER_TOKEN (2 here).
 */
const MiB = 1024 * 1024;
let h: RelayHarness;
let rt: FakeRealtime;

/** Server frames (unmasked) in `buf`, as far as they are complete. */
function serverFrames(buf: Buffer): Array<{ opcode: number; payload: Buffer }> {
  const frames: Array<{ opcode: number; payload: Buffer }> = [];
  let at = 0;
  for (;;) {
    if (buf.length < at + 2) return frames;
    let len = buf[at + 1]! & 0x7f;
    let head = 2;
    if (len === 126) {
      if (buf.length < at + 4) return frames;
      len = buf.readUInt16BE(at + 2);
      head = 4;
    } else if (len === 127) {
      if (buf.length < at + 10) return frames;
      len = Number(buf.readBigUInt64BE(at + 2));
      head = 10;
    }
    if (buf.length < at + head + len) return frames;
    frames.push({ opcode: buf[at]! & 0x0f, payload: buf.subarray(at + head, at + head + len) });
    at += head + len;
  }
}

/** A raw WebSocket upgrade over TCP; resolves with the socket and what followed the 101 headers. */
async function rawUpgrade(key: string): Promise<{ socket: Socket; received: () => Buffer }> {
  const url = new URL(h.server.url);
  const socket = netConnect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.write(
    [
      `GET /v1/realtime?model=${MODEL} HTTP/1.1`,
      `Host: ${url.host}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      `Authorization: Bearer sk-${key}`,
      '',
      '',
    ].join('\r\n'),
  );
  let data = Buffer.alloc(0);
  socket.on('data', (d: Buffer) => (data = Buffer.concat([data, d])));
  await eventually(() => data.includes('\r\n\r\n'));
  const end = data.indexOf('\r\n\r\n') + 4;
  expect(data.subarray(0, end).toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
  return { socket, received: () => data.subarray(end) };
}

describe.each(testDbKinds())('realtime: frame size and sockets per token, on %s', (kind) => {
  beforeAll(async () => {
    h = await startRelayHarness({ kind, env: { MAX_REQUEST_BODY_MB: '1', REALTIME_MAX_SOCKETS_PER_TOKEN: '2' } });
    rt = await startFakeRealtime({ apiKeys: ['sk-upstream'] });
    await addChannel(h.root, { name: 'openai-rt', base_url: rt.url, models: MODEL });
  });
  afterAll(async () => {
    await rt.close();
    await h.close();
  });

  it('a frame that announces 95 MB is refused from its header (close 1009) before any payload is read; the hold goes back', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const { socket, received } = await rawUpgrade(c.key);
    await eventually(() => serverFrames(received()).some((f) => f.opcode === 1 && f.payload.includes('"session.created"')));
    // FIN + text, masked, 64-bit length 95 000 000, mask key: the header alone, none of the payload.
    const header = Buffer.alloc(14);
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(95_000_000n, 2);
    randomBytes(4).copy(header, 10);
    socket.write(header);
    await eventually(() => serverFrames(received()).some((f) => f.opcode === 8));
    const close = serverFrames(received()).find((f) => f.opcode === 8)!;
    expect(close.payload.readUInt16BE(0)).toBe(1009);
    socket.destroy();
    const upstream = rt.connections.at(-1)!;
    await eventually(() => upstream.closed !== undefined);
    expect(upstream.closed?.by).toBe('client');
    expect(upstream.received).toEqual([]);
    await settledLedger(h, { userId: c.userId, count: 1 });
    expect(await balances(h, c)).toEqual(before);
    expect(await ledgerOutcomes(h, c.userId)).toEqual([[1, 'released', 0]]);
  });

  it('a frame over the cap mid-response: close 1009, and the response in flight is still billed at its usage', async () => {
    const c = await addCaller(h);
    rt.setPauseMidResponse(1, 1);
    let client: RealtimeClient;
    try {
      client = await connectRealtime(h, c);
      await client.next('session.created');
    } finally {
      rt.setPauseMidResponse(null);
    }
    const upstream = rt.connections.at(-1)!;
    client.send({ type: 'response.create', response: { modalities: ['text'] } });
    expect((await client.next('response.text.delta')).delta).toBe('Hello');
    // A frame at the cap still passes.
    client.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(MiB - 48) });
    expect(Buffer.byteLength(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(MiB - 48) }))).toBeLessThanOrEqual(MiB);
    await eventually(() => upstream.received.includes('input_audio_buffer.append'));
    client.ws.send(Buffer.alloc(MiB + 1, 0x20));
    expect(await client.closed).toEqual({ code: 1009, reason: '' });
    rt.resumeAll();
    await eventually(() => upstream.closed !== undefined);
    await settledLedger(h, { userId: c.userId, count: 1 });
    const quota = expectedRealtimeQuota(realtimeUsage({ text: 0, audio: 0 }, { text: 0, audio: 0 }, 6, false));
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([quota]);
    expect(await ledgerOutcomes(h, c.userId)).toEqual([[1, 'settled', quota]]);
  });

  it('the cap+1-th socket of a token is refused before the upgrade with 429; refusals and closes give slots back', async () => {
    const c = await addCaller(h);
    // Refused sessions (no channel serves the model) hold no slot.
    for (let i = 0; i < 3; i++) expect((await refusedUpgrade(h, { authorization: `Bearer sk-${c.key}` }, 'gpt-4o-not-a-model')).status).toBe(503);
    const first = await connectRealtime(h, c);
    const second = await connectRealtime(h, c);
    await Promise.all([first.next('session.created'), second.next('session.created')]);
    const upstreams = rt.connections.length;
    const third = await refusedUpgrade(h, { authorization: `Bearer sk-${c.key}`, 'accept-language': 'en' });
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('1');
    expect(third.body).toEqual({
      error: {
        message: 'This token has reached its limit of open realtime sessions; close one and try again: 2',
        type: 'new_api_error',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
    // Refused before anything was dialled or held.
    expect(rt.connections.length).toBe(upstreams);
    // Another token is not affected.
    const other = await addCaller(h);
    const elsewhere = await connectRealtime(h, other);
    await elsewhere.next('session.created');
    // A closed socket gives its slot back once its session is settled.
    first.ws.close();
    await first.closed;
    let again: RealtimeClient | number = 429;
    for (let i = 0; i < 100 && typeof again === 'number'; i++) {
      again = await openOrRefused(h, c);
      if (typeof again === 'number') {
        expect(again).toBe(429);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    if (typeof again === 'number') throw new Error('the slot of the closed socket was never given back');
    await again.next('session.created');
    for (const s of [second, again, elsewhere]) {
      s.ws.close();
      await s.closed;
    }
    await settledLedger(h, { userId: c.userId, count: 3 });
    expect(await balances(h, c)).toMatchObject({ userUsed: 0, tokenUsed: 0 });
  });
});

