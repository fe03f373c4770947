import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { multiNodeDbKinds } from '../../test-support/multinode.js';
import { outageHarness } from '../../test-support/outage.js';
import { addCaller, balances, consumeLogs, expectChargedFor, type TestCaller } from '../../test-support/relay-fixtures.js';
import { until } from '../../test-support/text.js';
import { windowCounter } from '../../test-support/windows.js';
import { reconcile } from '../reconcile.js';

/**
 * Issue 32 through a database outage (docs/reliability.md "Database outage"): callers with periodic
 * limits or plans are served from the window counters this node last saw — a user's daily cap holds
 * (429 at the cap), a plan pays (the wallet untouched) — and when the database is back the spool
 * charges the windows, the plan and the balances exactly once, even replayed twice. A window this
 * node never saw cannot be decided: 503.
 */

const MODEL = 'm-outage-windows';

describe.each(multiNodeDbKinds())('periodic limits and plans through a database outage on %s', (kind) => {
  const setup = outageHarness(kind, { SYNC_FREQUENCY: '2' }, MODEL);

  it('serves a daily cap and a plan from the cached windows, refuses an unseen window, and replays every charge once', { timeout: 90_000 }, async () => {
    const h = setup.h();
    const proxy = setup.proxy();
    const ctx = h.server.ctx;
    const db = ctx.db.db;
    const outage = ctx.relay.ledger.outage!;
    const plan = async (allowances: object) => {
      const r = await h.root.post('/api/plan/', { name: `p-${Math.random().toString(36).slice(2, 8)}`, price: 0, duration_days: 30, fall_through: false, allowances });
      expect(r.body.success, r.body.message).toBe(true);
      return r.body.data.id as number;
    };
    const grant = async (c: TestCaller, planId: number) => {
      const r = await h.root.post('/api/plan/grant', { user_id: c.userId, plan_id: planId });
      expect(r.body.success, r.body.message).toBe(true);
      return r.body.data.id as number;
    };
    const capped = await addCaller(h);
    expect((await h.root.put('/api/user/', { id: capped.userId, period_limits: { day: { requests: 4 } } })).body.success).toBe(true);
    const planned = await addCaller(h);
    const sub = await grant(planned, await plan({ day: { requests: 3 } }));
    // Two plans: only the first is ever read before the outage, so the second is a window this node never saw.
    const unseen = await addCaller(h);
    const subFirst = await grant(unseen, await plan({ day: { requests: 1 } }));
    await grant(unseen, await plan({ day: { requests: 5 } }));
    const before = { capped: await balances(h, capped), planned: await balances(h, planned), unseen: await balances(h, unseen) };
    const ask = (c: TestCaller, i: number, stream = false) =>
      stream
        ? (async () => {
            let text = '';
            for await (const chunk of await c.client.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: `s${i}` }] })) text += chunk.choices[0]?.delta?.content ?? '';
            return text;
          })()
        : c.client.chat.completions.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: `q${i}` }] });
    // Each caller's windows are seen once through the database.
    for (const c of [capped, planned, unseen]) await ask(c, 0);
    expect(await windowCounter(h, `s${subFirst}`, 'day')).toMatchObject({ requests_used: 1 });

    proxy.cut();
    // The capped user: served (one of them streaming) up to the cap, then told which window and when it refills.
    const served = { capped: 1, planned: 1 };
    const refusal = async (c: TestCaller, key: keyof typeof served) => {
      for (let i = 1; i < 20; i++) {
        try {
          await ask(c, i, i === 2);
          served[key] += 1;
        } catch (err) {
          return err as { status?: number; code?: string; message?: string; headers?: Headers };
        }
      }
      return undefined;
    };
    const cappedRefused = await refusal(capped, 'capped');
    expect(outage.active).toBe(true);
    expect(served.capped).toBe(4);
    expect(cappedRefused).toMatchObject({ status: 429, code: 'period_limit_exceeded' });
    expect(cappedRefused?.message).toMatch(/daily request limit \(4\)/);
    // The plan pays up to its allowance; it lets nothing fall through to the wallet.
    const plannedRefused = await refusal(planned, 'planned');
    expect(served.planned).toBe(3);
    expect(plannedRefused).toMatchObject({ status: 429, code: 'period_limit_exceeded' });
    // The first plan is full; the second was never read on this node: 503, as for an uncached caller.
    await expect(ask(unseen, 1)).rejects.toMatchObject({ status: 503, code: 'database_unavailable' });

    const spooled = fs.readdirSync(outage.spool.dir).map((n) => [n, fs.readFileSync(path.join(outage.spool.dir, n))] as const);
    expect(spooled.length).toBeGreaterThan(0);
    proxy.restore();
    await until(() => !outage.active && outage.spool.size === 0, 30_000);

    const exact = async () => {
      // The capped user: four answers, each charged once to the wallet, the token and the day window.
      const cappedCharged = await expectChargedFor(h, capped, before.capped, 4);
      expect(await windowCounter(h, `u${capped.userId}`, 'day')).toMatchObject({ quota_used: cappedCharged, requests_used: 4 });
      const charges = await db.selectFrom('window_charges').select(['quota', 'requests']).where('account', '=', `u${capped.userId}`).execute();
      expect(charges).toHaveLength(4);
      expect(charges.reduce((s, c) => s + Number(c.quota), 0)).toBe(cappedCharged);
      // The plan's user: three answers the plan paid — the wallet untouched, the token and used_quota moved.
      const logs = await consumeLogs(h, planned.userId);
      expect(logs).toHaveLength(3);
      const planCharged = logs.reduce((s, l) => s + Number(l.quota), 0);
      expect(planCharged).toBeGreaterThan(0);
      for (const l of logs) expect(JSON.parse(l.other)).toMatchObject({ billing_source: 'plan', plan_id: sub });
      expect(await balances(h, planned)).toEqual({
        quota: before.planned.quota,
        userUsed: before.planned.userUsed + planCharged,
        requests: before.planned.requests + 3,
        remain: before.planned.remain - planCharged,
        tokenUsed: before.planned.tokenUsed + planCharged,
      });
      expect(await windowCounter(h, `s${sub}`, 'day')).toMatchObject({ quota_used: planCharged, requests_used: 3 });
      const paid = await db.selectFrom('ledger_requests').select(['paid_by', 'charge']).where('user_id', '=', planned.userId).execute();
      expect(paid.map((r) => Number(r.paid_by))).toEqual([sub, sub, sub]);
      // The refused and the unseen requests cost nothing: the one answer before the outage, paid by the first plan.
      expect(await consumeLogs(h, unseen.userId)).toHaveLength(1);
      expect((await balances(h, unseen)).quota).toBe(before.unseen.quota);
      expect(await windowCounter(h, `s${subFirst}`, 'day')).toMatchObject({ requests_used: 1 });
      expect(await db.selectFrom('reservations').selectAll().where('user_id', 'in', [capped.userId, planned.userId, unseen.userId]).execute()).toEqual([]);
      expect((await reconcile(db)).mismatches).toEqual([]);
    };
    await exact();
    // The database agrees with what the node decided: both windows are full.
    await expect(ask(capped, 99)).rejects.toMatchObject({ status: 429 });
    await expect(ask(planned, 99)).rejects.toMatchObject({ status: 429 });

    // The same spool replayed again (a crash before its file was deleted) moves nothing.
    for (const [name, bytes] of spooled) fs.writeFileSync(path.join(outage.spool.dir, name), bytes);
    expect(await outage.replay()).toBe(true);
    expect(outage.spool.size).toBe(0);
    await exact();
  });
});
