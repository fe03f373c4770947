import { expectedChatUsage } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const usage = expectedChatUsage({ messages });
/** One call's exact cost for gpt-4 (ratio 15, completion ratio 2). */
const COST = expectedCharge({ model: 'gpt-4' }, { prompt: usage.prompt_tokens, completion: usage.completion_tokens });

describe.each(testDbKinds())('100 parallel requests against a balance for 10 on %s', (kind) => {
  let h: RelayHarness;

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
  });
  afterAll(() => h.close());

  async function fire(c: Awaited<ReturnType<typeof addCaller>>) {
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        i % 2
          ? c.client.chat.completions.create({ model: 'gpt-4', messages, max_tokens: 5 })
          : c.client.chat.completions.create({ model: 'gpt-4', messages, max_tokens: 5, stream: true }).then(async (s) => {
              for await (const _chunk of s) void _chunk;
            }),
      ),
    );
    for (const r of results) {
      // Refusals are quota errors decided before any upstream call, never a 5xx.
      if (r.status === 'rejected') expect([400, 401, 403]).toContain((r.reason as { status: number }).status);
    }
    return results.filter((r) => r.status === 'fulfilled').length;
  }

  async function assertLedger(c: { userId: number; tokenId: number }, before: Awaited<ReturnType<typeof balances>>, ok: number) {
    const after = await balances(h, c);
    const logs = await consumeLogs(h, c.userId);
    const logged = logs.reduce((s, l) => s + Number(l.quota), 0);
    expect(logs).toHaveLength(ok);
    // A call that finds only a remainder is served clamped (fewer tokens, a smaller charge), so
    // what was served is at most the 10 calls' worth the balance covers, and each at most one call.
    expect(logged).toBeLessThanOrEqual(10 * COST);
    expect(logs.every((l) => Number(l.quota) <= COST)).toBe(true);
    expect(logs.filter((l) => Number(l.quota) === COST).length).toBeLessThanOrEqual(10);
    expect(before.quota - after.quota).toBe(logged);
    expect(after.userUsed - before.userUsed).toBe(logged);
    expect(after.tokenUsed - before.tokenUsed).toBe(logged);
    expect(after.requests - before.requests).toBe(ok);
    expect(after.quota).toBeGreaterThanOrEqual(0);
    expect(after.remain).toBeGreaterThanOrEqual(0);
    expect(await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute()).toHaveLength(0);
    return after;
  }

  it('user balance: at most 10 calls\' worth is served, nothing goes negative, logged quota = balance change', async () => {
    const c = await addCaller(h, { quota: 10 * COST, remain: 100_000_000 });
    const before = await balances(h, c);
    const ok = await fire(c);
    expect(ok).toBeGreaterThan(0);
    await assertLedger(c, before, ok);
  });

  it('token limit: at most 10 calls\' worth is served, the token never goes below zero', async () => {
    const c = await addCaller(h, { quota: 100_000_000, remain: 10 * COST });
    const before = await balances(h, c);
    const ok = await fire(c);
    expect(ok).toBeGreaterThan(0);
    const after = await assertLedger(c, before, ok);
    expect(before.remain - after.remain).toBe(after.tokenUsed - before.tokenUsed);
  });
});
