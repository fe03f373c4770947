import { realtimeUsage, startFakeRealtime, type FakeRealtime, type RealtimeConnection } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../test-support/expected-charge.js';
import { connectRealtime, eventually, expectedRealtimeQuota, ledgerOutcomes, REALTIME_MODEL as MODEL, settledLedger, type RealtimeClient } from '../../test-support/realtime-client.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { DRAIN_DEADLINE_MS } from './realtime-session.js';

/**
 * Issue 29, "realtime answers for free": a client that read the deltas of a response and closed
 * its socket before `response.done` was charged nothing, because the relay closed the upstream
 * and released the hold. The upstream is now read on until that response ends.
 */
let h: RelayHarness;
let rt: FakeRealtime;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A session whose first response stops after `afterWords` reply words (deltas sent) until `rt.resumeAll()`. */
async function pausedSession(c: TestCaller, afterWords: number): Promise<{ client: RealtimeClient; upstream: RealtimeConnection }> {
  rt.setPauseMidResponse(1, afterWords);
  try {
    const client = await connectRealtime(h, c);
    await client.next('session.created');
    return { client, upstream: rt.connections.at(-1)! };
  } finally {
    rt.setPauseMidResponse(null);
  }
}

async function askAudio(client: RealtimeClient): Promise<void> {
  client.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Tell me a joke please' }] } });
  await client.next('conversation.item.created');
  client.send({ type: 'response.create', response: { modalities: ['audio', 'text'] } });
}

/** The client hangs up; the gateway must not have closed the upstream on that account. */
async function leave(client: RealtimeClient, upstream: RealtimeConnection): Promise<void> {
  client.ws.close(1000, 'bye');
  expect(await client.closed).toEqual({ code: 1000, reason: 'bye' });
  // Long enough for the gateway to have seen the close (it used to close the upstream at once).
  await sleep(100);
  expect(upstream.closed).toBeUndefined();
}

async function withPreConsumed(tokens: number, fn: () => Promise<void>): Promise<void> {
  const options = h.server.ctx.options;
  const before = String(options.num('PreConsumedQuota'));
  await options.set('PreConsumedQuota', String(tokens));
  try {
    await fn();
  } finally {
    await options.set('PreConsumedQuota', before);
  }
}

describe.each(testDbKinds())('realtime: a response in flight when the client leaves is billed, on %s', (kind) => {
  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    rt = await startFakeRealtime({ apiKeys: ['sk-upstream'] });
    await addChannel(h.root, { name: 'openai-rt', base_url: rt.url, models: MODEL });
  });
  afterAll(async () => {
    await rt.close();
    await h.close();
  });

  it('client reads deltas and closes before response.done: the usage of the later response.done is charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const { client, upstream } = await pausedSession(c, 2);
    await askAudio(client);
    expect((await client.next('response.audio_transcript.delta')).delta).toBe('Hello');
    expect((await client.next('response.audio_transcript.delta')).delta).toBe(' from');
    await leave(client, upstream);
    // The model finishes the answer nobody reads any more; its response.done reaches only the gateway.
    rt.resumeAll();
    await eventually(() => upstream.closed !== undefined);
    expect(upstream.closed).toEqual({ code: 1000, by: 'client' });
    expect(upstream.received).toEqual(['conversation.item.create', 'response.create']);
    await settledLedger(h, { userId: c.userId, count: 1 });

    // What the fake reports: 5 words read, a 6-word reply spoken (6 text + 30 audio tokens).
    const usage = realtimeUsage({ text: 5, audio: 0 }, { text: 0, audio: 0 }, 6, true);
    const quota = expectedRealtimeQuota(usage);
    expect(quota).toBe(3073);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(quota);
    expect(before.remain - after.remain).toBe(quota);
    expect(after.userUsed).toBe(quota);
    expect(after.tokenUsed).toBe(quota);
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => [Number(l.quota), Number(l.prompt_tokens), Number(l.completion_tokens)])).toEqual([[quota, 5, 36]]);
    const other = JSON.parse(logs[0]!.other) as Record<string, unknown>;
    expect(other).toMatchObject({ ws: true, audio: true, audio_output: 30 });
    expect(other.estimated).toBeUndefined();
    // One outcome for the one response; no further hold was taken for a next one.
    expect(await ledgerOutcomes(h, c.userId)).toEqual([[1, 'settled', quota]]);
  });

  it('the upstream closes after the client left, without response.done: the output that came through is charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    // A small hold (20 tokens: round(20 × 4) × 2.5 = 200) so the count, not the floor, decides.
    await withPreConsumed(20, async () => {
      const { client, upstream } = await pausedSession(c, 2);
      await askAudio(client);
      const audio: string[] = [];
      for (const word of ['Hello', ' from']) {
        audio.push((await client.next('response.audio.delta')).delta as string);
        expect((await client.next('response.audio_transcript.delta')).delta).toBe(word);
      }
      // 5 audio tokens a word, each 50 ms of pcm16 at 24 kHz (2 400 bytes).
      expect(audio.map((a) => Buffer.from(a, 'base64').length)).toEqual([12_000, 12_000]);
      await leave(client, upstream);
      rt.closeAll(1011, 'server error');
      await eventually(() => upstream.closed !== undefined);
      await settledLedger(h, { userId: c.userId, count: 1 });
    });
    // "Hello from": 2 text tokens (o200k); 24 000 bytes of audio: 10 tokens.
    // round((round(2 × 4) + round(10 × 20 × 2)) × 2.5) = round(408 × 2.5) = 1 020.
    expect(expectedCharge({ model: MODEL }, { completion: 12, audioOut: 10 })).toBe(1020);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(1020);
    expect(before.remain - after.remain).toBe(1020);
    expect(after.userUsed).toBe(1020);
    expect(after.tokenUsed).toBe(1020);
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => [Number(l.quota), Number(l.prompt_tokens), Number(l.completion_tokens)])).toEqual([[1020, 0, 12]]);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ ws: true, estimated: true, audio_output: 10 });
    expect(await ledgerOutcomes(h, c.userId)).toEqual([[1, 'settled', 1020]]);
  });

  it('the client leaves before any output: the response the model then completes is still billed', async () => {
    const c = await addCaller(h);
    const { client, upstream } = await pausedSession(c, 0);
    client.send({ type: 'response.create', response: { modalities: ['text'] } });
    await client.next('response.created');
    await leave(client, upstream);
    rt.resumeAll();
    await eventually(() => upstream.closed !== undefined);
    await settledLedger(h, { userId: c.userId, count: 1 });
    // No input items: only the 6-word text reply, round(round(6 × 4) × 2.5) = 60.
    expect(expectedRealtimeQuota(realtimeUsage({ text: 0, audio: 0 }, { text: 0, audio: 0 }, 6, false))).toBe(60);
    expect((await consumeLogs(h, c.userId)).map((l) => Number(l.quota))).toEqual([60]);
    expect(await ledgerOutcomes(h, c.userId)).toEqual([[1, 'settled', 60]]);
  });

  it('the client leaves between responses: the upstream closes at once and the next hold goes back', async () => {
    const c = await addCaller(h);
    const client = await connectRealtime(h, c);
    client.send({ type: 'response.create', response: { modalities: ['text'] } });
    await client.next('response.done');
    const upstream = rt.connections.at(-1)!;
    client.ws.close(1000);
    await client.closed;
    await eventually(() => upstream.closed !== undefined);
    expect(upstream.closed).toEqual({ code: 1000, by: 'client' });
    // The next hold may still be on its way when the client leaves: it is given back after it is taken.
    await settledLedger(h, { userId: c.userId, count: 2 });
    expect(await ledgerOutcomes(h, c.userId)).toEqual([
      [1, 'settled', 60],
      [2, 'released', 0],
    ]);
  });

  // The deadline is the same code on every database; waiting it out once is enough.
  it.runIf(kind === testDbKinds()[0])(
    'the upstream never finishes: after the drain deadline the gateway closes it and charges the count, at least the hold',
    async () => {
      const c = await addCaller(h);
      const before = await balances(h, c);
      const { client, upstream } = await pausedSession(c, 1);
      client.send({ type: 'response.create', response: { modalities: ['text'] } });
      expect((await client.next('response.text.delta')).delta).toBe('Hello');
      const left = Date.now();
      await leave(client, upstream);
      for (let i = 0; i < (DRAIN_DEADLINE_MS + 3000) / 50 && !upstream.closed; i++) await sleep(50);
      expect(Date.now() - left).toBeGreaterThanOrEqual(DRAIN_DEADLINE_MS - 50);
      expect(upstream.closed).toEqual({ code: 1000, by: 'client' });
      await settledLedger(h, { userId: c.userId, count: 1 });
      // Counted: 1 token, round(1 × 4) × 2.5 = 10; the hold of PreConsumedQuota 500 tokens (5 000) is the floor.
      const after = await balances(h, c);
      expect(before.quota - after.quota).toBe(5000);
      expect(before.remain - after.remain).toBe(5000);
      const logs = await consumeLogs(h, c.userId);
      expect(logs.map((l) => [Number(l.quota), Number(l.prompt_tokens), Number(l.completion_tokens)])).toEqual([[5000, 0, 1]]);
      expect(await ledgerOutcomes(h, c.userId)).toEqual([[1, 'settled', 5000]]);
    },
    DRAIN_DEADLINE_MS + 15_000,
  );
});
