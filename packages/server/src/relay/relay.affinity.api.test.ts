import Anthropic from '@anthropic-ai/sdk';
import { randomBytes } from 'node:crypto';
import { startFakeAnthropic, type FakeAnthropic } from '@modelgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

/**
 * Channel affinity (docs/providers.md "Channel affinity"): a conversation's requests stay on the
 * channel that served it. Two Anthropic channels of equal weight serve each model; the log rows'
 * channel_id says which one answered.
 */

/** The affinity map lives in the database, and in Redis when the run has one. */
const backends = (): Array<[string, Record<string, string>]> => {
  const out: Array<[string, Record<string, string>]> = testDbKinds().map((k) => [k, {}]);
  if (process.env.TEST_REDIS_URL) out.push(['sqlite + redis', { REDIS_CONN_STRING: process.env.TEST_REDIS_URL }]);
  return out;
};

/** A Claude Code style metadata.user_id, unique to this run (a shared Redis keeps earlier runs' entries). */
const session = () => `user_${randomBytes(8).toString('hex')}_account_${randomBytes(4).toString('hex')}_session_${randomBytes(8).toString('hex')}`;

describe.each(backends())('channel affinity on %s', (label, env) => {
  let h: RelayHarness;
  let good: FakeAnthropic;
  let flaky: FakeAnthropic;
  const kind = label.startsWith('postgres') ? 'postgres' : label.startsWith('mysql') ? 'mysql' : 'sqlite';

  beforeAll(async () => {
    h = await startRelayHarness({ kind, env });
    good = await startFakeAnthropic();
    flaky = await startFakeAnthropic();
    await priceModels(h, ['aff-spread', 'aff-move', 'aff-retry', 'aff-off', 'aff-users', 'aff-pin', 'aff-chat', 'aff-single']);
  });
  afterAll(async () => {
    await good.close();
    await flaky.close();
    await h.close();
  });
  afterEach(async () => {
    flaky.setFault(null);
    await h.server.ctx.options.set('ChannelAffinityEnabled', 'true');
    await h.server.ctx.options.set('RetryTimes', '0');
  });

  /** Two channels of equal weight and priority for `model`. */
  async function pair(model: string, second: FakeAnthropic = good): Promise<[number, number]> {
    const a = await addChannel(h.root, { type: 14, key: 'sk-ant-a', base_url: good.url, models: model });
    const b = await addChannel(h.root, { type: 14, key: 'sk-ant-b', base_url: second.url, models: model });
    return [a, b];
  }

  const ask = (c: TestCaller, model: string, userId: string) =>
    anthropicClient(h, c).messages.create({ model, max_tokens: 32, metadata: { user_id: userId }, messages: [{ role: 'user', content: 'Hi there' }] });

  /** Log rows since `from`, as channel id and whether affinity chose it. */
  async function served(c: TestCaller, from = 0) {
    const logs = (await consumeLogs(h, c.userId)).slice(from);
    return logs.map((l) => ({ channel: Number(l.channel_id), affinity: (JSON.parse(l.other) as { affinity?: boolean }).affinity === true }));
  }

  /** Every charge exact: each row billed prompt + completion at ratio 1, the user and token down by their sum. */
  async function chargedExactly(c: TestCaller, before: Awaited<ReturnType<typeof balances>>) {
    const logs = await consumeLogs(h, c.userId);
    for (const l of logs) expect(Number(l.quota)).toBe(Number(l.prompt_tokens) + Number(l.completion_tokens));
    const total = logs.reduce((s, l) => s + Number(l.quota), 0);
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(total);
    expect(before.remain - after.remain).toBe(total);
    expect(after.userUsed - before.userUsed).toBe(total);
  }

  it('keeps one conversation on one channel (20 requests), spreads other conversations, and costs no store round trip once remembered', async () => {
    const [a, b] = await pair('aff-spread');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const io = { ...h.server.ctx.relay.affinity.io };
    const id = session();
    for (let i = 0; i < 20; i++) await ask(c, 'aff-spread', id);
    const rows = await served(c);
    expect(new Set(rows.map((r) => r.channel)).size).toBe(1);
    expect([a, b]).toContain(rows[0]!.channel);
    // The first request was routed by weight; affinity chose the next 19.
    expect(rows.map((r) => r.affinity)).toEqual([false, ...Array<boolean>(19).fill(true)]);
    // One read (the first request's miss) and one write (its binding): the other 19 were answered from memory.
    expect(h.server.ctx.relay.affinity.io.reads - io.reads).toBe(1);
    expect(h.server.ctx.relay.affinity.io.writes - io.writes).toBe(1);

    for (let i = 0; i < 20; i++) await ask(c, 'aff-spread', session());
    const others = await served(c, 20);
    // 20 conversations over two channels of equal weight: both serve some (all on one: 2^-19).
    expect(new Set(others.map((r) => r.channel))).toEqual(new Set([a, b]));
    expect(others.every((r) => !r.affinity)).toBe(true);
    await chargedExactly(c, before);
  });

  it('costs no store read or write for a model only one channel serves (nothing to choose)', async () => {
    await addChannel(h.root, { type: 14, key: 'sk-ant-single', base_url: good.url, models: 'aff-single' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const io = { ...h.server.ctx.relay.affinity.io };
    for (let i = 0; i < 3; i++) await ask(c, 'aff-single', session());
    expect(h.server.ctx.relay.affinity.io).toEqual(io);
    expect((await served(c)).map((r) => r.affinity)).toEqual([false, false, false]);
    await chargedExactly(c, before);
  });

  it('moves a conversation off a disabled channel, and keeps it on the new one after the old comes back', async () => {
    await pair('aff-move');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const id = session();
    await ask(c, 'aff-move', id);
    const [first] = await served(c);
    expect((await h.root.put('/api/channel/', { id: first!.channel, status: 2 })).body.success).toBe(true);
    await ask(c, 'aff-move', id);
    const [, moved] = await served(c);
    expect(moved!.channel).not.toBe(first!.channel);
    expect(moved!.affinity).toBe(false);
    expect((await h.root.put('/api/channel/', { id: first!.channel, status: 1 })).body.success).toBe(true);
    for (let i = 0; i < 5; i++) await ask(c, 'aff-move', id);
    expect((await served(c, 2)).map((r) => r)).toEqual(Array(5).fill({ channel: moved!.channel, affinity: true }));
    await chargedExactly(c, before);
  });

  it('a failed bound channel falls back through the retry; the entry moves to the channel that answered', async () => {
    const [steady, shaky] = await pair('aff-retry', flaky);
    await h.server.ctx.options.set('RetryTimes', '1');
    const c = await addCaller(h);
    const before = await balances(h, c);
    // Conversations until one is bound to the flaky upstream's channel.
    let id = '';
    for (let i = 0; i < 40 && !id; i++) {
      const s = session();
      await ask(c, 'aff-retry', s);
      if ((await served(c)).at(-1)!.channel === shaky) id = s;
    }
    expect(id).not.toBe('');
    const from = (await served(c)).length;
    flaky.setFault({ status: 500 });
    await ask(c, 'aff-retry', id);
    const [rescued] = await consumeLogs(h, c.userId).then((l) => l.slice(from));
    expect(Number(rescued!.channel_id)).toBe(steady);
    const other = JSON.parse(rescued!.other) as { affinity?: boolean; admin_info: { use_channel: string[] } };
    expect(other.affinity).toBeUndefined();
    expect(other.admin_info.use_channel).toEqual([String(shaky), String(steady)]);
    flaky.setFault(null);
    for (let i = 0; i < 3; i++) await ask(c, 'aff-retry', id);
    expect(await served(c, from + 1)).toEqual(Array(3).fill({ channel: steady, affinity: true }));
    await chargedExactly(c, before);
  });

  it('does nothing when ChannelAffinityEnabled is off', async () => {
    const [a, b] = await pair('aff-off');
    await h.server.ctx.options.set('ChannelAffinityEnabled', 'false');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const id = session();
    for (let i = 0; i < 20; i++) await ask(c, 'aff-off', id);
    const rows = await served(c);
    expect(new Set(rows.map((r) => r.channel))).toEqual(new Set([a, b]));
    expect(rows.every((r) => !r.affinity)).toBe(true);
    await chargedExactly(c, before);
  });

  it('a pinned channel (sk-<key>-<channelId>) skips affinity: it is neither read nor bound', async () => {
    const [a, b] = await pair('aff-pin');
    const admin = await addCaller(h, { role: 10 });
    const before = await balances(h, admin);
    const id = session();
    const io = { ...h.server.ctx.relay.affinity.io };
    for (const ch of [a, b, a]) {
      const pinned = new Anthropic({ apiKey: `sk-${admin.key}-${ch}`, baseURL: h.server.url, maxRetries: 0 });
      await pinned.messages.create({ model: 'aff-pin', max_tokens: 32, metadata: { user_id: id }, messages: [{ role: 'user', content: 'Hi there' }] });
    }
    expect(await served(admin)).toEqual([a, b, a].map((channel) => ({ channel, affinity: false })));
    expect(h.server.ctx.relay.affinity.io).toEqual(io);
    await chargedExactly(admin, before);
  });

  it('OpenAI chat callers: the Codex session_id header, and else the leading prompt, name the conversation', async () => {
    await addChannel(h.root, { key: 'sk-a', base_url: h.fake.url, models: 'aff-chat' });
    await addChannel(h.root, { key: 'sk-b', base_url: h.fake.url, models: 'aff-chat' });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const sid = randomBytes(8).toString('hex');
    const system = `You are helper ${randomBytes(4).toString('hex')}.`;
    for (let i = 0; i < 4; i++) await c.client.chat.completions.create({ model: 'aff-chat', messages: [{ role: 'user', content: `turn ${i}` }] }, { headers: { session_id: sid } });
    // No id at all: the system text and first user message stay the same as the conversation grows.
    const history: Array<{ role: 'system' | 'user' | 'assistant'; content: string }> = [{ role: 'system', content: system }, { role: 'user', content: 'Hi there' }];
    for (let i = 0; i < 4; i++) {
      await c.client.chat.completions.create({ model: 'aff-chat', messages: history });
      history.push({ role: 'assistant', content: `answer ${i}` }, { role: 'user', content: `more ${i}` });
    }
    const rows = await served(c);
    for (const part of [rows.slice(0, 4), rows.slice(4)]) {
      expect(new Set(part.map((r) => r.channel)).size).toBe(1);
      expect(part.map((r) => r.affinity)).toEqual([false, true, true, true]);
    }
    await chargedExactly(c, before);
  });

  it('never shares a binding between two users sending the same key', async () => {
    await pair('aff-users');
    const alice = await addCaller(h);
    const bob = await addCaller(h);
    const before = await balances(h, bob);
    const id = session();
    for (let i = 0; i < 3; i++) await ask(alice, 'aff-users', id);
    expect((await served(alice)).map((r) => r.affinity)).toEqual([false, true, true]);
    // Bob's first request finds no binding of his own: routed by weight, not by Alice's entry.
    for (let i = 0; i < 3; i++) await ask(bob, 'aff-users', id);
    const rows = await served(bob);
    expect(rows.map((r) => r.affinity)).toEqual([false, true, true]);
    expect(new Set(rows.map((r) => r.channel)).size).toBe(1);
    await chargedExactly(bob, before);
  });
});
