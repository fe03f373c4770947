import { startFakeStripe, type FakeStripe } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../ledger/reconcile.js';
import { ApiClient, newUser, rootClient, type ApiResult } from '../../test-support/api-client.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { randomAlnum } from '../users/password.js';

/**
 * Bad input on a user's own plan routes (`/api/user/plan*`): every wrong value — missing, null,
 * empty, not an integer, out of range, the wrong JSON type, an unknown payment method, a plan that
 * is missing, deleted, off sale or free, another user's subscription — is answered in the console's
 * envelope (HTTP 200, `{success:false, message}` naming the field; 401 only without a session) and
 * moves no money: no wallet, no order, no subscription and no ledger entry changes.
 */
const PRICE = 300_000;
const QUOTA = 1_000_000;
const MISSING = 999_999;

/** The ids a case refers to, made in beforeAll. */
interface World {
  m: ApiClient & { id: number };
  v: ApiClient & { id: number };
  /** Plans: on sale, off sale, deleted, free, never expiring, dearer than the wallet. */
  on: number;
  off: number;
  gone: number;
  free: number;
  forever: number;
  dear: number;
  /** `m`'s subscriptions: one cancelled, one running that never expires, one granted that renewing costs more than the wallet; `v`'s running one. */
  mEnded: number;
  mForever: number;
  mDear: number;
  vSub: number;
}

type Case = [name: string, call: (w: World) => Promise<ApiResult>, message: (w: World) => string | RegExp];

const NOT_INT = 'Must be an integer';
const OUT_OF_RANGE = 'Number out of the allowed range';
const RANGE = '(1 ~ 9007199254740991)';

/** Values that are no id, and what each is answered, for the field `field`. */
function badIds(field: string): Array<[string, (w: World) => unknown, string]> {
  return [
    ['missing', () => undefined, `${NOT_INT}: ${field}`],
    ['null', () => null, `${NOT_INT}: ${field}`],
    ['empty string', () => '', `${NOT_INT}: ${field}`],
    ['blank string', () => '  ', `${NOT_INT}: ${field}`],
    ['word', () => 'abc', `${NOT_INT}: ${field}`],
    ['exponent string', () => '1e3', `${NOT_INT}: ${field}`],
    ['hex string', () => '0x10', `${NOT_INT}: ${field}`],
    ['float', () => 1.5, `${NOT_INT}: ${field}`],
    ['float string', () => '2.5', `${NOT_INT}: ${field}`],
    ['boolean', () => true, `${NOT_INT}: ${field}`],
    ['array', (w) => [w.on], `${NOT_INT}: ${field}`],
    ['object', (w) => ({ id: w.on }), `${NOT_INT}: ${field}`],
    ['zero', () => 0, `${OUT_OF_RANGE}: ${field} ${RANGE}`],
    ['negative', () => -1, `${OUT_OF_RANGE}: ${field} ${RANGE}`],
    ['negative string', () => '-5', `${OUT_OF_RANGE}: ${field} ${RANGE}`],
    ['2^53', () => 2 ** 53, `${OUT_OF_RANGE}: ${field} ${RANGE}`],
    ['1e300', () => 1e300, `${OUT_OF_RANGE}: ${field} ${RANGE}`],
  ];
}

/** A body without the keys whose value is undefined (a missing field). */
const body = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));

/** Every id-taking route with one bad id. */
function idCases(): Case[] {
  const routes: Array<[string, (w: World, id: unknown) => Promise<ApiResult>, string]> = [
    ['pay', (w, id) => w.m.post('/api/user/plan/pay', body({ plan_id: id, payment_method: 'zfb' })), 'plan_id'],
    ['buy', (w, id) => w.m.post('/api/user/plan/buy', body({ plan_id: id })), 'plan_id'],
    ['renew', (w, id) => w.m.post('/api/user/plan/renew', body({ id })), 'id'],
    ['cancel', (w, id) => w.m.post('/api/user/plan/cancel', body({ id })), 'id'],
    ['settings', (w, id) => w.m.put('/api/user/plan/settings', body({ id, auto_renew: false })), 'id'],
  ];
  return routes.flatMap(([route, send, field]) => badIds(field).map(([what, value, message]): Case => [`${route}: ${field} ${what}`, (w) => send(w, value(w)), () => message]));
}

const payable = (w: World, query: string) => w.m.get(`/api/user/plan/payable${query}`);
const pay = (w: World, fields: Record<string, unknown>) => w.m.post('/api/user/plan/pay', fields);

const cases: Case[] = [
  ...idCases(),
  // The query string of `payable` carries strings only.
  ['payable: plan_id missing', (w) => payable(w, ''), () => `${NOT_INT}: plan_id`],
  ['payable: plan_id empty', (w) => payable(w, '?plan_id='), () => `${NOT_INT}: plan_id`],
  ['payable: plan_id a word', (w) => payable(w, '?plan_id=abc'), () => `${NOT_INT}: plan_id`],
  ['payable: plan_id a float', (w) => payable(w, '?plan_id=1.5'), () => `${NOT_INT}: plan_id`],
  ['payable: plan_id zero', (w) => payable(w, '?plan_id=0'), () => `${OUT_OF_RANGE}: plan_id ${RANGE}`],
  ['payable: plan_id negative', (w) => payable(w, '?plan_id=-3'), () => `${OUT_OF_RANGE}: plan_id ${RANGE}`],
  ['payable: plan_id 2^53', (w) => payable(w, `?plan_id=${2 ** 53}`), () => `${OUT_OF_RANGE}: plan_id ${RANGE}`],
  ['payable: plan_id twice (an array)', (w) => payable(w, `?plan_id=${w.on}&plan_id=${w.on}`), () => `${NOT_INT}: plan_id`],
  ['payable: plan_id[] (no plan_id)', (w) => payable(w, `?plan_id[]=${w.on}`), () => `${NOT_INT}: plan_id`],
  ['payable: a plan that does not exist', (w) => payable(w, `?plan_id=${MISSING}`), () => 'Plan not found'],
  ['payable: the largest id', (w) => payable(w, `?plan_id=${Number.MAX_SAFE_INTEGER}`), () => 'Plan not found'],
  ['payable: a deleted plan', (w) => payable(w, `?plan_id=${w.gone}`), () => 'Plan not found'],
  ['payable: a plan off sale', (w) => payable(w, `?plan_id=${w.off}`), () => 'This plan is not on sale'],
  ['payable: a free plan', (w) => payable(w, `?plan_id=${w.free}`), () => 'This plan is free: buy it with your balance'],

  // Plans that cannot be paid or bought.
  ['pay: a plan that does not exist', (w) => pay(w, { plan_id: MISSING, payment_method: 'zfb' }), () => 'Plan not found'],
  ['pay: a deleted plan', (w) => pay(w, { plan_id: w.gone, payment_method: 'stripe' }), () => 'Plan not found'],
  ['pay: a plan off sale, its id as a string', (w) => pay(w, { plan_id: String(w.off), payment_method: 'wx' }), () => 'This plan is not on sale'],
  ['pay: a free plan', (w) => pay(w, { plan_id: w.free, payment_method: 'zfb' }), () => 'This plan is free: buy it with your balance'],
  ['buy: a plan that does not exist', (w) => w.m.post('/api/user/plan/buy', { plan_id: MISSING }), () => 'Plan not found'],
  ['buy: the largest id', (w) => w.m.post('/api/user/plan/buy', { plan_id: Number.MAX_SAFE_INTEGER }), () => 'Plan not found'],
  ['buy: a deleted plan', (w) => w.m.post('/api/user/plan/buy', { plan_id: w.gone }), () => 'Plan not found'],
  ['buy: a plan off sale, its id as a string', (w) => w.m.post('/api/user/plan/buy', { plan_id: String(w.off) }), () => 'This plan is not on sale'],
  ['buy: a plan dearer than the wallet', (w) => w.m.post('/api/user/plan/buy', { plan_id: w.dear }), () => /^Your balance does not cover this plan: price .+, balance /],
  ['renew: dearer than the wallet', (w) => w.m.post('/api/user/plan/renew', { id: w.mDear }), () => /^Your balance does not cover this plan: price .+, balance /],

  // payment_method: a string naming zfb, wx or stripe (alipay and wxpay too), nothing else.
  ['pay: payment_method missing', (w) => pay(w, { plan_id: w.on }), () => 'Required field missing: payment_method (string)'],
  ['pay: payment_method null', (w) => pay(w, { plan_id: w.on, payment_method: null }), () => 'Field has the wrong type: payment_method (string)'],
  ['pay: payment_method a number', (w) => pay(w, { plan_id: w.on, payment_method: 5 }), () => 'Field has the wrong type: payment_method (string)'],
  ['pay: payment_method an array', (w) => pay(w, { plan_id: w.on, payment_method: ['zfb'] }), () => 'Field has the wrong type: payment_method (string)'],
  ['pay: payment_method an object', (w) => pay(w, { plan_id: w.on, payment_method: { method: 'zfb' } }), () => 'Field has the wrong type: payment_method (string)'],
  ['pay: payment_method too long', (w) => pay(w, { plan_id: w.on, payment_method: 'z'.repeat(17) }), () => /^Invalid parameter: payment_method: /],
  ['pay: payment_method empty', (w) => pay(w, { plan_id: w.on, payment_method: '' }), () => 'Unsupported payment method'],
  ['pay: payment_method unknown', (w) => pay(w, { plan_id: w.on, payment_method: 'paypal' }), () => 'Unsupported payment method'],
  ['pay: payment_method in capitals', (w) => pay(w, { plan_id: w.on, payment_method: 'STRIPE' }), () => 'Unsupported payment method'],
  ['pay: payment_method padded', (w) => pay(w, { plan_id: w.on, payment_method: 'zfb ' }), () => 'Unsupported payment method'],
  ['pay: payment_method __proto__', (w) => pay(w, { plan_id: w.on, payment_method: '__proto__' }), () => 'Unsupported payment method'],

  // Subscriptions: another user's, one that does not exist, one that ended, one that never expires.
  ...(['renew', 'cancel'] as const).flatMap((r): Case[] => [
    [`${r}: another user's subscription`, (w) => w.m.post(`/api/user/plan/${r}`, { id: w.vSub }), () => 'Subscription not found'],
    [`${r}: a subscription that does not exist`, (w) => w.m.post(`/api/user/plan/${r}`, { id: MISSING }), () => 'Subscription not found'],
    [`${r}: the largest id`, (w) => w.m.post(`/api/user/plan/${r}`, { id: Number.MAX_SAFE_INTEGER }), () => 'Subscription not found'],
    [`${r}: an ended subscription, its id as a string`, (w) => w.m.post(`/api/user/plan/${r}`, { id: String(w.mEnded) }), () => 'This subscription has ended'],
  ]),
  ['renew: a subscription that never expires', (w) => w.m.post('/api/user/plan/renew', { id: w.mForever }), () => 'This plan never expires: there is nothing to renew'],
  ['settings: another user\'s subscription', (w) => w.m.put('/api/user/plan/settings', { id: w.vSub, auto_renew: true }), () => 'Subscription not found'],
  ['settings: auto_renew missing', (w) => w.m.put('/api/user/plan/settings', { id: w.mForever }), () => 'Required field missing: auto_renew'],
  ['settings: auto_renew a word', (w) => w.m.put('/api/user/plan/settings', { id: w.mForever, auto_renew: 'yes' }), () => /^Field has the wrong type: auto_renew/],
  ['settings: auto_renew on a subscription that never expires', (w) => w.m.put('/api/user/plan/settings', { id: w.mForever, auto_renew: true }), () => 'This plan never expires: there is nothing to renew'],
  ['order: ids missing', (w) => w.m.put('/api/user/plan/order', {}), () => /^Required field missing: ids/],
  ['order: ids not an array', (w) => w.m.put('/api/user/plan/order', { ids: String(w.mForever) }), () => /^Field has the wrong type: ids/],
  ['order: a float id', (w) => w.m.put('/api/user/plan/order', { ids: [1.5] }), () => `${NOT_INT}: ids.0`],
  ['order: another user\'s subscription', (w) => w.m.put('/api/user/plan/order', { ids: [w.vSub] }), () => 'The order must list each of your active subscriptions exactly once'],
  ['order: one subscription twice', (w) => w.m.put('/api/user/plan/order', { ids: [w.mForever, w.mForever] }), () => 'The order must list each of your active subscriptions exactly once'],
  ['order: none of them', (w) => w.m.put('/api/user/plan/order', { ids: [] }), () => 'The order must list each of your active subscriptions exactly once'],

  // The body itself.
  ['buy: the body an array', (w) => w.m.post('/api/user/plan/buy', [{ plan_id: w.on }]), () => /^Field has the wrong type/],
  ['buy: the body a JSON string', (w) => w.m.post('/api/user/plan/buy', `{"plan_id":${w.on}}`), () => /^Field has the wrong type/],
  ['buy: malformed JSON', (w) => raw(w.m, '/api/user/plan/buy', `{"plan_id":${w.on}`), () => /^Invalid parameter: /],
  ['buy: a __proto__ key', (w) => raw(w.m, '/api/user/plan/buy', `{"__proto__":{"plan_id":${w.on}}}`), () => /^Invalid parameter: /],
  ['buy: plain text', (w) => raw(w.m, '/api/user/plan/buy', `plan_id=${w.on}`, 'text/plain'), () => /^Field has the wrong type/],
  ['buy: an unknown content type', (w) => raw(w.m, '/api/user/plan/buy', `plan_id=${w.on}`, 'application/x-www-form-urlencoded'), () => /^Invalid parameter: /],
  ['pay: a malformed Idempotency-Key', (w) => w.m.call('POST', '/api/user/plan/pay', { plan_id: w.on, payment_method: 'zfb' }, { 'Idempotency-Key': 'x' }), () => 'Invalid parameter: Idempotency-Key'],
];

/** A request with a body sent as is. */
async function raw(c: ApiClient, path: string, text: string, type = 'application/json'): Promise<ApiResult> {
  const res = await fetch(c.baseUrl + path, { method: 'POST', headers: { Cookie: c.cookie, 'New-Api-User': String(c.userId), 'Accept-Language': 'en', 'Content-Type': type }, body: text });
  return { status: res.status, body: (await res.json()) as ApiResult['body'], headers: res.headers };
}

describe('bad input on the user plan routes (SQLite)', () => {
  let srv: TestServer;
  let root: ApiClient;
  let stripe: FakeStripe;
  const w = {} as World;
  const db = () => srv.ctx.db.db;

  /** What money and subscriptions a user has: wallet, orders, subscriptions, ledger entries. */
  async function holdings(userId: number) {
    const u = await db().selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
    const orders = await db().selectFrom('top_ups').select('trade_no').where('user_id', '=', userId).execute();
    const subs = await db().selectFrom('user_plans').select(['id', 'status', 'expires_at', 'renewals', 'auto_renew', 'priority']).where('user_id', '=', userId).orderBy('id').execute();
    const entries = await db().selectFrom('ledger_entries').select(['kind', 'quota_delta', 'ref']).where('user_id', '=', userId).orderBy('id').execute();
    return {
      quota: Number(u.quota),
      used: Number(u.used_quota),
      orders: orders.length,
      subs: subs.map((s) => [Number(s.id), Number(s.status), Number(s.expires_at), Number(s.renewals), Number(s.auto_renew), Number(s.priority)]),
      entries: entries.map((e) => [e.kind, Number(e.quota_delta), e.ref]),
    };
  }
  let before: { m: Awaited<ReturnType<typeof holdings>>; v: Awaited<ReturnType<typeof holdings>> };

  async function member(): Promise<ApiClient & { id: number }> {
    const api = await newUser(srv.url, `pb${randomAlnum(8).toLowerCase()}`);
    expect((await root.put('/api/user/', { id: api.userId, quota: QUOTA })).body.success).toBe(true);
    return Object.assign(api, { id: api.userId! });
  }
  async function plan(fields: Record<string, unknown> = {}): Promise<number> {
    const r = await root.post('/api/plan/', { name: `Plan ${randomAlnum(4)}`, price: PRICE, duration_days: 30, allowances: { day: { requests: 50 } }, ...fields });
    expect(r.body.success, r.body.message).toBe(true);
    return r.body.data.id as number;
  }
  async function grant(userId: number, planId: number): Promise<number> {
    const r = await root.post('/api/plan/grant', { user_id: userId, plan_id: planId });
    expect(r.body.success, r.body.message).toBe(true);
    return r.body.data.id as number;
  }

  beforeAll(async () => {
    srv = await startTestServer({ kind: 'sqlite' });
    root = await rootClient(srv.url);
    stripe = await startFakeStripe({ apiKey: 'sk_test_mg', webhookSecret: 'whsec_mg_endpoint' });
    // Epay and Stripe enabled: the method and the plan are what is refused, not the site's settings.
    const options: Record<string, string> = {
      ServerAddress: srv.url,
      PayAddress: 'http://127.0.0.1:9',
      EpayId: '1001',
      EpayKey: 'merchant-key',
      StripeApiBase: stripe.url,
      StripeApiSecret: 'sk_test_mg',
      StripeWebhookSecret: 'whsec_mg_endpoint',
      StripeUnitPrice: '1.5',
      StripeTopUpEnabled: 'true',
    };
    for (const [key, value] of Object.entries(options)) expect((await root.put('/api/option/', { key, value })).body, key).toMatchObject({ success: true });
    [w.m, w.v] = [await member(), await member()];
    [w.on, w.off, w.gone, w.free, w.forever] = [await plan(), await plan({ status: 2 }), await plan(), await plan({ price: 0 }), await plan({ duration_days: 0 })];
    w.dear = await plan({ price: QUOTA + 1 });
    expect((await root.del(`/api/plan/${w.gone}`)).body.success).toBe(true);
    w.mEnded = await grant(w.m.id, w.on);
    expect((await w.m.post('/api/user/plan/cancel', { id: w.mEnded })).body.success).toBe(true);
    w.mForever = await grant(w.m.id, w.forever);
    w.mDear = await grant(w.m.id, w.dear);
    // The other user bought theirs from the wallet.
    const bought = await w.v.post('/api/user/plan/buy', { plan_id: w.on });
    expect(bought.body.success, bought.body.message).toBe(true);
    w.vSub = bought.body.data.id as number;
    before = { m: await holdings(w.m.id), v: await holdings(w.v.id) };
  });
  afterAll(async () => {
    await stripe?.close();
    await srv?.close();
  });

  it('a string id is that id; the controls are accepted', async () => {
    const asNumber = await payable(w, `?plan_id=${w.on}`);
    expect(asNumber.body).toMatchObject({ success: true, data: { plan_id: w.on, price: PRICE } });
    expect((await payable(w, `?plan_id=${String(w.on)}`)).body).toEqual(asNumber.body);
    // A list takes no user from the query: one's own subscriptions only.
    const mine = await w.m.get(`/api/user/plan/?user_id=${w.v.id}`);
    expect(mine.body.success).toBe(true);
    expect((mine.body.data as Array<{ id: number; user_id: number }>).map((s) => [s.id, s.user_id])).toEqual([
      [w.mForever, w.m.id],
      [w.mDear, w.m.id],
      [w.mEnded, w.m.id],
    ]);
    expect((await w.m.get('/api/user/plan/available')).body.data.map((p: { id: number }) => p.id).sort()).toEqual([w.on, w.free, w.forever, w.dear].sort());
  });

  it.each(cases)('%s', async (_name, call, message) => {
    const r = await call(w);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(false);
    const expected = message(w);
    if (typeof expected === 'string') expect(r.body.message).toBe(expected);
    else expect(r.body.message).toMatch(expected);
    expect(r.body).not.toHaveProperty('data');
  });

  it('an unknown method is named as such on a site with Stripe only; a known Epay method there says Epay is off', async () => {
    expect((await root.put('/api/option/', { key: 'EpayId', value: '' })).body.success).toBe(true);
    try {
      expect((await payable(w, `?plan_id=${w.on}`)).body.data.methods.map((x: { method: string }) => x.method)).toEqual(['stripe']);
      expect((await pay(w, { plan_id: w.on, payment_method: 'paypal' })).body).toEqual({ success: false, message: 'Unsupported payment method' });
      expect((await pay(w, { plan_id: w.on, payment_method: 'zfb' })).body).toEqual({ success: false, message: 'Online top-up is not enabled by the administrator' });
    } finally {
      expect((await root.put('/api/option/', { key: 'EpayId', value: '1001' })).body.success).toBe(true);
    }
  });

  it('without a session the routes answer 401 in the envelope', async () => {
    const anonymous = new ApiClient(srv.url);
    for (const r of [
      await anonymous.get(`/api/user/plan/payable?plan_id=${w.on}`),
      await anonymous.post('/api/user/plan/pay', { plan_id: w.on, payment_method: 'zfb' }),
      await anonymous.post('/api/user/plan/buy', { plan_id: w.on }),
      await anonymous.post('/api/user/plan/renew', { id: w.vSub }),
      await anonymous.post('/api/user/plan/cancel', { id: w.vSub }),
      await anonymous.get('/api/user/plan/'),
    ]) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ success: false, message: expect.any(String) });
    }
  });

  it("moved no money: both wallets, orders, subscriptions and ledger entries are as before, and the ledger reconciles", async () => {
    expect(await holdings(w.m.id)).toEqual(before.m);
    expect(await holdings(w.v.id)).toEqual(before.v);
    expect(before.m).toMatchObject({ quota: QUOTA, orders: 0 });
    expect(before.v).toMatchObject({ quota: QUOTA - PRICE, orders: 0 });
    const r = await reconcile(db());
    expect(r.mismatches).toEqual([]);
    expect(r.ok).toBe(true);
  });
});
