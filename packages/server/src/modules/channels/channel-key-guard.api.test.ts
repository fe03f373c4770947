import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../../test-support/api-client.js';
import { startCaptureListener, type CaptureListener } from '../../test-support/capture-listener.js';
import { addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { CHANNEL_KEY_PURPOSE } from '../../crypto/secret-box.js';

const SECRET_KEY = 'sk-root-only-secret-4b7e9d';
const REFUSED_EN = "Changing where a channel's requests go (type, base URL, proxy, region, account or API version) requires entering its key again";
const REFUSED_ZH = '修改渠道的请求去向（类型、Base URL、代理、地区、账户或 API 版本）时必须重新填写密钥';

/**
 * An admin (role 10) never sees channel keys, so it must not be able to send one somewhere else:
 * repointing a channel (base URL, type) needs the key typed again unless the caller is root.
 */
describe.each(testDbKinds())('channel keys stay with their upstream on %s', (kind) => {
  let h: RelayHarness;
  let admin: ApiClient;
  let catcher: CaptureListener;

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    catcher = await startCaptureListener({ status: 200, body: '{"object":"list","data":[{"id":"gpt-4o-mini"}]}', contentType: 'application/json' });
    // The catcher listens on loopback, where a non-root admin may point a channel only once the operator allows it.
    await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
    admin = await newUser(h.server.url, 'chanadmin');
    expect((await h.root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.data).toMatchObject({ role: 10 });
    // A role change ends the user's sessions: the new admin signs in again.
    expect((await admin.login('chanadmin', 'password123')).body.success).toBe(true);
  });
  afterAll(async () => {
    await catcher?.close();
    await h?.close();
  });
  beforeEach(() => {
    catcher.seen.length = 0;
  });

  // The key opened: it is stored sealed (crypto/secret-box.ts).
  const stored = async (id: number) => {
    const row = await h.server.ctx.db.db.selectFrom('channels').select(['key', 'base_url', 'type', 'name', 'setting']).where('id', '=', id).executeTakeFirstOrThrow();
    return { ...row, key: h.server.ctx.secrets.open(CHANNEL_KEY_PURPOSE, row.key) };
  };
  const loaded = async (c: ApiClient, id: number) => (await c.get(`/api/channel/${id}`)).body.data as Record<string, unknown>;
  /** Every way an admin can make the server call a channel's upstream with its stored key. */
  const pressEverything = async (id: number) => {
    await admin.get(`/api/channel/test/${id}`);
    await admin.get(`/api/channel/fetch_models/${id}`);
    await admin.get(`/api/channel/update_balance/${id}/`);
  };
  const keysSeen = () => catcher.seen.map((r) => String(r.headers.authorization ?? '') + String(r.headers['api-key'] ?? ''));

  it('refuses an admin’s repointing without a key, in both languages, and nothing reaches the new address', async () => {
    const id = await addChannel(h.root, { name: 'guarded', base_url: h.fake.url, key: SECRET_KEY });
    const record = await loaded(admin, id);

    // The console's drawer sends the whole record back with key "".
    const whole = await admin.put('/api/channel/', { ...record, base_url: catcher.url, key: '' });
    expect(whole.body).toEqual({ success: false, message: REFUSED_EN });
    admin.lang = 'zh';
    const zh = await admin.put('/api/channel/', { id, base_url: `${catcher.url}/` });
    admin.lang = 'en';
    expect(zh.body).toEqual({ success: false, message: REFUSED_ZH });
    expect((await admin.put('/api/channel/', { id, base_url: catcher.url, key: '   ' })).body.message).toBe(REFUSED_EN);
    expect((await admin.put('/api/channel/', { ...record, type: 8, base_url: `${catcher.url}/v1/chat/completions`, key: '' })).body.message).toBe(REFUSED_EN);
    // A type change alone also moves the key (another adapter, another default host).
    expect((await admin.put('/api/channel/', { ...record, type: 43, key: '' })).body.message).toBe(REFUSED_EN);

    expect(await stored(id)).toMatchObject({ key: SECRET_KEY, base_url: h.fake.url, type: 1, name: 'guarded' });
    await pressEverything(id);
    expect(catcher.seen).toEqual([]);
  });

  it('lets an admin repoint a channel with a new key, which is then the only key sent there', async () => {
    const id = await addChannel(h.root, { name: 'rekeyed', base_url: h.fake.url, key: SECRET_KEY });
    const r = await admin.put('/api/channel/', { ...(await loaded(admin, id)), base_url: catcher.url, key: 'sk-admins-own-key' });
    expect(r.body).toMatchObject({ success: true, data: { id, base_url: catcher.url, key: '' } });
    expect(await stored(id)).toMatchObject({ key: 'sk-admins-own-key', base_url: catcher.url });
    await pressEverything(id);
    expect(catcher.seen.length).toBeGreaterThan(0);
    expect(keysSeen().every((k) => k === 'Bearer sk-admins-own-key')).toBe(true);
  });

  it('keeps ordinary admin edits keyless: same address (trailing slash aside), other fields, row controls', async () => {
    const id = await addChannel(h.root, { name: 'plain-edit', base_url: h.fake.url, key: SECRET_KEY });
    const record = await loaded(admin, id);
    expect((await admin.put('/api/channel/', { ...record, name: 'plain-edited', models: 'gpt-4o-mini,gpt-4o', key: '' })).body.success).toBe(true);
    expect((await admin.put('/api/channel/', { ...(await loaded(admin, id)), base_url: `${h.fake.url}/`, key: '' })).body.success).toBe(true);
    expect((await admin.put('/api/channel/', { id, priority: 3 })).body.success).toBe(true);
    expect((await admin.put('/api/channel/', { id, status: 2 })).body.success).toBe(true);
    expect(await stored(id)).toMatchObject({ key: SECRET_KEY, base_url: h.fake.url, name: 'plain-edited' });
  });

  it('lets root repoint without re-entering the key', async () => {
    const id = await addChannel(h.root, { name: 'root-moves', base_url: h.fake.url, key: SECRET_KEY });
    const r = await h.root.put('/api/channel/', { ...(await loaded(h.root, id)), base_url: catcher.url, key: '' });
    expect(r.body.success).toBe(true);
    expect(await stored(id)).toMatchObject({ key: SECRET_KEY, base_url: catcher.url });
  });

  it('treats a channel proxy in the extra settings like the base URL', async () => {
    const id = await addChannel(h.root, { name: 'proxied', base_url: h.fake.url, key: SECRET_KEY, setting: '{"proxy":""}' });
    const record = await loaded(admin, id);
    expect((await admin.put('/api/channel/', { ...record, setting: JSON.stringify({ proxy: catcher.url }), key: '' })).body.message).toBe(REFUSED_EN);
    expect((await admin.put('/api/channel/', { ...record, setting: '{"proxy":"","thinking_to_content":true}', key: '' })).body.success).toBe(true);
  });

  it('gives no way around it through copy or tag edits', async () => {
    const id = await addChannel(h.root, { name: 'copied', base_url: h.fake.url, key: SECRET_KEY, tag: 'guard-tag' });
    const copy = await admin.post(`/api/channel/copy/${id}?suffix=-c`);
    expect(copy.body.success).toBe(true);
    const copyId = copy.body.data.id as number;
    expect(await stored(copyId)).toMatchObject({ key: SECRET_KEY, base_url: h.fake.url });
    expect((await admin.put('/api/channel/', { ...(await loaded(admin, copyId)), base_url: catcher.url, key: '' })).body.message).toBe(REFUSED_EN);

    // Tag edits change only the fields they list; an address or type in the body is not applied.
    const tagEdit = await admin.put('/api/channel/tag', { tag: 'guard-tag', base_url: catcher.url, type: 8, setting: JSON.stringify({ proxy: catcher.url }), priority: 2 });
    expect(tagEdit.body.success).toBe(true);
    for (const c of [id, copyId]) {
      const row = await stored(c);
      expect(row).toMatchObject({ key: SECRET_KEY, base_url: h.fake.url, type: 1 });
      expect(row.setting ?? '').not.toContain(catcher.url);
    }
    await pressEverything(id);
    await pressEverything(copyId);
    expect(catcher.seen).toEqual([]);
  });
});
