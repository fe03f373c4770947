import { channelTypeInfo, CHANNEL_TYPES } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterFor } from '../../relay/adapters/registry.js';
import { addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

/**
 * Channel balances per provider (providers-china-and-tasks §7), each read by its adapter's balance
 * query against the provider's endpoint on the OpenAI fake (which serves the resellers' and
 * gateways' balance routes beside OpenAI's billing pair).
 */
let h: RelayHarness;

beforeAll(async () => {
  h = await startRelayHarness({ fake: { apiKeys: ['sk-good'] } });
});
afterAll(async () => {
  await h.close();
});

const balanceOf = async (fields: Record<string, unknown>) => {
  const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good', ...fields });
  const r = await h.root.get(`/api/channel/update_balance/${id}`);
  return { id, body: r.body as { success: boolean; message: string; balance: number } };
};
const seen = () => h.fake.requests.at(-1)!;

describe('channel balances per provider', () => {
  beforeAll(() => h.fake.setBalance({ hardLimitUsd: 50, totalUsageCents: 1250 }));

  it('AIProxy (10): getUserOverview with the key in Api-Key; data.totalPoints', async () => {
    const { body } = await balanceOf({ type: 10 });
    expect(body).toMatchObject({ success: true, balance: 37.5 });
    expect(seen()).toMatchObject({ method: 'GET', path: '/api/report/getUserOverview' });
    expect(seen().headers['api-key']).toBe('sk-good');
    expect(seen().headers.authorization).toBeUndefined();
  });

  it('API2GPT (12): credit_grants total_remaining; AIGC2D (13): total_available', async () => {
    h.fake.setBalance({ hardLimitUsd: 50, totalUsageCents: 1250 });
    expect((await balanceOf({ type: 12 })).body).toMatchObject({ success: true, balance: 37.5 });
    expect(seen()).toMatchObject({ path: '/dashboard/billing/credit_grants' });
    expect(seen().headers.authorization).toBe('Bearer sk-good');
    h.fake.setBalance({ hardLimitUsd: 20, totalUsageCents: 500 });
    expect((await balanceOf({ type: 13 })).body).toMatchObject({ success: true, balance: 15 });
  });

  it('OpenRouter (20): credits minus usage; SiliconCloud (40): user/info totalBalance (a string)', async () => {
    h.fake.setBalance({ hardLimitUsd: 30, totalUsageCents: 1000 });
    expect((await balanceOf({ type: 20 })).body).toMatchObject({ success: true, balance: 20 });
    expect(seen()).toMatchObject({ path: '/v1/credits' });
    const { id, body } = await balanceOf({ type: 40 });
    expect(body).toMatchObject({ success: true, balance: 20 });
    expect(seen()).toMatchObject({ path: '/v1/user/info' });
    const row = (await h.root.get(`/api/channel/${id}`)).body.data as { balance: number };
    expect(row.balance).toBe(20);
  });

  it('a refusal in the provider`s own shape is a failure, not a zero balance', async () => {
    const id = await addChannel(h.root, { type: 10, base_url: h.fake.url, key: 'sk-good' });
    // The fake answers AIProxy's `success:false` when no Api-Key arrives: simulated by a key-less channel row.
    await h.server.ctx.db.db.updateTable('channels').set({ key: '' }).where('id', '=', id).execute();
    const r = await h.root.get(`/api/channel/update_balance/${id}`);
    expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: false, message: expect.stringContaining('Api-Key is required') });
  });

  it('a provider without a balance endpoint answers "not supported by this provider"', async () => {
    const { body } = await balanceOf({ type: 39, key: 'cf-token', other: '0123456789abcdef0123456789abcdef' });
    expect(body).toMatchObject({ success: false, message: expect.stringMatching(/not supported by this provider/) });
  });

  it('the console`s balance flag and the adapters agree for every type', () => {
    for (const [type] of CHANNEL_TYPES) expect(channelTypeInfo(type)?.balance === true, `type ${type}`).toBe(adapterFor(type)?.balance !== undefined);
  });
});
