import { FAKE_VENDOR_KEY, startFakeVendor, type FakeVendor } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

/**
 * Balances of Moonshot (25) and DeepSeek (43) against their vendor fakes: Moonshot's
 * `available_balance` (yuan for api.moonshot.cn accounts), DeepSeek's `balance_infos` in USD or
 * CNY; yuan converted to dollars at the Price option's rate. The batch job switches off a channel
 * whose balance is at or below zero.
 */
let h: RelayHarness;
let moon: FakeVendor;
let deep: FakeVendor;

beforeAll(async () => {
  h = await startRelayHarness();
  [moon, deep] = await Promise.all([startFakeVendor('moonshot'), startFakeVendor('deepseek')]);
  // A payment option: it needs the server address first.
  await h.server.ctx.options.set('ServerAddress', 'http://127.0.0.1');
  await h.server.ctx.options.set('Price', '8');
});
afterAll(async () => {
  await Promise.all([moon.close(), deep.close()]);
  await h.close();
});

const update = async (id: number) => (await h.root.get(`/api/channel/update_balance/${id}`)).body as { success: boolean; message: string; balance: number };
const status = async (id: number) => Number((await h.server.ctx.db.db.selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status);

describe('vendor balances', () => {
  it('Moonshot: GET /v1/users/me/balance, available_balance in yuan converted at the Price rate', async () => {
    moon.setBalance(40);
    const id = await addChannel(h.root, { type: 25, key: FAKE_VENDOR_KEY, base_url: moon.url, models: 'moonshot-v1-8k' });
    expect(await update(id)).toMatchObject({ success: true, balance: 5 });
    expect(moon.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/users/me/balance' });
    expect(moon.requests.at(-1)!.headers.authorization).toBe(`Bearer ${FAKE_VENDOR_KEY}`);
    const row = (await h.root.get(`/api/channel/${id}`)).body.data as { balance: number };
    expect(row.balance).toBe(5);
  });

  it('DeepSeek: GET /user/balance, a USD entry as is, a CNY entry converted', async () => {
    const id = await addChannel(h.root, { type: 43, key: FAKE_VENDOR_KEY, base_url: deep.url, models: 'deepseek-chat' });
    deep.setBalance(12.5, 'USD');
    expect(await update(id)).toMatchObject({ success: true, balance: 12.5 });
    expect(deep.requests.at(-1)).toMatchObject({ method: 'GET', path: '/user/balance' });
    deep.setBalance(100, 'CNY');
    expect(await update(id)).toMatchObject({ success: true, balance: 12.5 });
  });

  it('a refused key is a failure with the provider`s words, not a zero balance', async () => {
    const id = await addChannel(h.root, { type: 43, key: 'sk-wrong', base_url: deep.url, models: 'deepseek-chat' });
    const r = await update(id);
    expect(r.success).toBe(false);
    expect(r.message).toContain('401');
  });

  it('update all: a Moonshot or DeepSeek channel at zero is switched off, one with money stays on', async () => {
    const empty = await addChannel(h.root, { type: 43, key: FAKE_VENDOR_KEY, base_url: deep.url, models: 'deepseek-chat', name: 'ds-empty' });
    const rich = await addChannel(h.root, { type: 25, key: FAKE_VENDOR_KEY, base_url: moon.url, models: 'moonshot-v1-8k', name: 'moon-rich' });
    deep.setBalance(0, 'CNY');
    moon.setBalance(16);
    // Channels of earlier cases point at the same fakes: park them so only these two are judged.
    await h.server.ctx.db.db.updateTable('channels').set({ status: 2 }).where('id', 'not in', [empty, rich]).execute();
    const r = await h.root.get('/api/channel/update_balance');
    expect(r.body.success, JSON.stringify(r.body)).toBe(true);
    expect(await status(empty)).toBe(3);
    expect(await status(rich)).toBe(1);
  });
});
