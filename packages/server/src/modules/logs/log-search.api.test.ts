import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { hashPassword } from '../users/password.js';

/** The reference's remaining log calls (server-behaviour §1): keyword search, usage by key, and the admin DB ping. */
describe.each(testDbKinds())('log search, usage by key and status test on %s', (kind) => {
  let h: RelayHarness;
  let dave: TestCaller;
  let erin: TestCaller;
  let daveApi: ApiClient;
  const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,gpt-4' });
    dave = await addCaller(h);
    erin = await addCaller(h);
    const db = h.server.ctx.db.db;
    await db.updateTable('users').set({ username: 'dave', password: await hashPassword('password123') }).where('id', '=', dave.userId).execute();
    daveApi = new ApiClient(h.server.url);
    await daveApi.login('dave', 'password123');
    await dave.client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await dave.client.chat.completions.create({ model: 'gpt-4', messages });
    await erin.client.chat.completions.create({ model: 'gpt-4', messages });
  });
  afterAll(() => h.close());

  it('admin search matches a model, a username or a type, newest first, with admin detail', async () => {
    const byModel = await h.root.get('/api/log/search?keyword=gpt-4');
    expect(byModel.body.success).toBe(true);
    expect(byModel.body.data.map((l: { model_name: string }) => l.model_name)).toEqual(['gpt-4', 'gpt-4']);
    expect(byModel.body.data[0].user_id).toBe(erin.userId);
    expect(JSON.parse(byModel.body.data[0].other).admin_info).toBeDefined();
    const byUser = await h.root.get('/api/log/search?keyword=dave');
    expect(byUser.body.data.filter((l: { type: number }) => l.type === 2)).toHaveLength(2);
    const byType = await h.root.get('/api/log/search?keyword=2');
    expect(byType.body.data.filter((l: { type: number }) => l.type === 2)).toHaveLength(3);
    expect((await h.root.get('/api/log/search?keyword=nothing-like-this')).body.data).toEqual([]);
  });

  it('self search sees only the caller’s rows, without admin detail', async () => {
    const r = await daveApi.get('/api/log/self/search?keyword=gpt-4');
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0]).toMatchObject({ user_id: dave.userId, model_name: 'gpt-4' });
    expect(JSON.parse(r.body.data[0].other).admin_info).toBeUndefined();
    expect((await daveApi.get('/api/log/search?keyword=gpt-4')).body.success).toBe(false);
  });

  it('usage by key: public, CORS open, only that token’s rows; a wrong or missing key is refused', async () => {
    const res = await fetch(`${h.server.url}/api/log/token?key=sk-${dave.key}`, { headers: { origin: 'https://usage.example', 'accept-language': 'en' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as { success: boolean; data: Array<{ model_name: string; user_id: number; id: number; other: string }> };
    expect(body.success).toBe(true);
    expect(body.data.map((l) => l.model_name)).toEqual(['gpt-4', 'gpt-4o-mini']);
    for (const l of body.data) {
      expect(l.user_id).toBe(dave.userId);
      expect(l.id).toBeLessThan(1024);
      expect(JSON.parse(l.other).admin_info).toBeUndefined();
    }
    // Without the sk- prefix too.
    expect(((await (await fetch(`${h.server.url}/api/log/token?key=${dave.key}`)).json()) as { data: unknown[] }).data).toHaveLength(2);
    const pre = await fetch(`${h.server.url}/api/log/token`, { method: 'OPTIONS', headers: { origin: 'https://usage.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const wrong = await new ApiClient(h.server.url).get('/api/log/token?key=sk-notarealkey');
    expect(wrong.body).toMatchObject({ success: false, message: 'The key does not exist or may not be read' });
    const missing = await new ApiClient(h.server.url).get('/api/log/token?key=');
    expect(missing.body).toMatchObject({ success: false, message: 'Please provide an API key' });
  });

  it('GET /api/status/test pings the database for admins only', async () => {
    const r = await h.root.get('/api/status/test');
    expect(r.body.success).toBe(true);
    expect(r.body.data.database_ms).toBeGreaterThanOrEqual(0);
    expect((await daveApi.get('/api/status/test')).body.success).toBe(false);
  });
});

describe('usage by key is rate-limited per address', () => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ env: { CRITICAL_RATE_LIMIT_ENABLE: 'true', CRITICAL_RATE_LIMIT: '3', CRITICAL_RATE_LIMIT_DURATION: '600' } });
  });
  afterAll(() => h.close());

  it('answers 429 after the limit, whatever the key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch(`${h.server.url}/api/log/token?key=sk-guess${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
