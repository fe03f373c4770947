import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_RATIO, DEFAULT_CREATE_CACHE_RATIO, DEFAULT_MODEL_RATIO } from '@modelgate/shared';
import { ApiClient } from '../../test-support/api-client.js';
import { expectedPerCallCharge } from '../../test-support/expected-charge.js';
import { addCaller, addChannel, consumeLogs, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';

interface PricingBody {
  success: boolean;
  data: Array<{ model_name: string; quota_type: number; model_ratio: number; model_price: number; completion_ratio: number; enable_groups: string[] }>;
  group_ratio: Record<string, number>;
  usable_group: Record<string, string>;
}

/** `GET /api/pricing` against the option tables, the enabled-models list of the ratio editor, and a new price billing the next request. */
describe.each(testDbKinds())('pricing on %s', (kind) => {
  let h: RelayHarness;
  const pricing = async () => (await (await fetch(`${h.server.url}/api/pricing`)).json()) as PricingBody;

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,dall-e-3,zz-unpriced', group: 'default,vip' });
    await addChannel(h.root, { base_url: h.fake.url, models: 'claude-3-5-haiku-20241022', group: 'vip' });
  });
  afterAll(() => h.close());

  it('lists priced models gpt first, fixed prices as quota_type 1, each with its groups; unpriced ones only when allowed', async () => {
    const body = await pricing();
    expect(body.data.map((m) => m.model_name)).toEqual(['gpt-4o-mini', 'claude-3-5-haiku-20241022', 'dall-e-3']);
    expect(body.data[0]).toMatchObject({ quota_type: 0, model_ratio: 0.075, model_price: 0, completion_ratio: 4, enable_groups: ['default', 'vip'] });
    expect(body.data[2]).toMatchObject({ quota_type: 1, model_price: 0.04 });
    expect(body.data[1]!.enable_groups).toEqual(['vip']);
    await h.server.ctx.options.set('AllowUnpricedModels', 'true');
    expect((await pricing()).data.find((m) => m.model_name === 'zz-unpriced')).toMatchObject({ quota_type: 0, model_ratio: 30 });
    await h.server.ctx.options.set('AllowUnpricedModels', 'false');
  });

  it('gives the ratios of the caller’s usable groups: the default group when signed out', async () => {
    await h.root.put('/api/option/', { key: 'GroupRatio', value: JSON.stringify({ default: 1, vip: 0.5, svip: 2 }) });
    const anon = await pricing();
    expect(anon.group_ratio).toEqual({ default: 1, vip: 0.5 });
    expect(Object.keys(anon.usable_group).sort()).toEqual(['default', 'vip']);
  });

  it('lists every model an enabled channel serves for admins (the editor’s unpriced list)', async () => {
    const r = await h.root.get('/api/channel/models_enabled');
    expect(r.body.data).toEqual(['gpt-4o-mini', 'claude-3-5-haiku-20241022', 'dall-e-3', 'zz-unpriced']);
    expect((await new ApiClient(h.server.url).get('/api/channel/models_enabled')).status).toBe(401);
  });

  it('a price saved through the options API shows on the pricing page and bills the next request', async () => {
    const prices = h.server.ctx.options.json<Record<string, number>>('ModelPrice', {});
    const saved = await h.root.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify({ ...prices, 'gpt-4o-mini': 0.02 }, null, 2) });
    expect(saved.body.success).toBe(true);
    expect((await pricing()).data[0]).toMatchObject({ model_name: 'gpt-4o-mini', quota_type: 1, model_price: 0.02 });
    const c = await addCaller(h);
    await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const [log] = await consumeLogs(h, c.userId);
    expect(Number(log!.quota)).toBe(expectedPerCallCharge({ model: 'gpt-4o-mini', tables: { modelPrice: { 'gpt-4o-mini': 0.02 } } }));
    expect(JSON.parse(log!.other)).toMatchObject({ model_price: 0.02 });
  });

  it('root resets the five tables to the defaults, pretty-printed', async () => {
    expect((await h.root.put('/api/option/', { key: 'CacheRatio', value: JSON.stringify({ 'gpt-5': 0.7 }) })).body.success).toBe(true);
    expect((await h.root.put('/api/option/', { key: 'CreateCacheRatio', value: JSON.stringify({}) })).body.success).toBe(true);
    expect((await h.root.post('/api/option/rest_model_ratio?scope=all')).body).toEqual({ success: true, message: 'Model ratios, completion ratios, model prices and cache ratios were reset to the defaults' });
    const stored = (await h.root.get('/api/option/')).body.data as Array<{ key: string; value: string }>;
    const price = stored.find((o) => o.key === 'ModelPrice')!.value;
    expect(JSON.parse(price)['gpt-4o-mini']).toBeUndefined();
    expect(price).toContain('\n  "');
    expect(JSON.parse(stored.find((o) => o.key === 'CacheRatio')!.value)).toEqual(DEFAULT_CACHE_RATIO);
    expect(JSON.parse(stored.find((o) => o.key === 'CreateCacheRatio')!.value)).toEqual(DEFAULT_CREATE_CACHE_RATIO);
    expect((await pricing()).data[0]).toMatchObject({ model_name: 'gpt-4o-mini', quota_type: 0 });
  });

  it('the reference console\'s reset (no scope) resets the model ratios alone and says so', async () => {
    expect((await h.root.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o-mini': 9 }) })).body.success).toBe(true);
    expect((await h.root.put('/api/option/', { key: 'CacheRatio', value: JSON.stringify({ 'gpt-5': 0.7 }) })).body.success).toBe(true);
    const res = await h.root.post('/api/option/rest_model_ratio');
    expect(res.body).toEqual({ success: true, message: 'Model ratios were reset to the defaults' });
    const stored = (await h.root.get('/api/option/')).body.data as Array<{ key: string; value: string }>;
    expect(JSON.parse(stored.find((o) => o.key === 'ModelRatio')!.value)).toEqual(DEFAULT_MODEL_RATIO);
    expect(JSON.parse(stored.find((o) => o.key === 'CacheRatio')!.value)).toEqual({ 'gpt-5': 0.7 });
  });
});
