import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../../test-support/api-client.js';
import { startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';

describe.each(testDbKinds())('channels on %s', (kind) => {
  let h: RelayHarness;
  let root: ApiClient;

  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    root = h.root;
  });
  afterAll(() => h.close());

  async function abilities(channelId: number) {
    return h.server.ctx.db.db.selectFrom('abilities').selectAll().where('channel_id', '=', channelId).orderBy('group').orderBy('model').execute();
  }

  describe('channels API', () => {
    it('creates one channel per key line, never returns keys, and writes abilities', async () => {
      const r = await root.post('/api/channel/', { type: 1, name: 'batch', key: 'k-one\nk-two\n\n', models: 'gpt-4, gpt-4o ,gpt-4', groups: ['default', 'vip'], priority: 3 });
      expect(r.body.success).toBe(true);
      const list = await root.get('/api/channel/?p=0&page_size=10&id_sort=true&tag_mode=false');
      const batch = (list.body.data as Array<Record<string, unknown>>).filter((c) => c.name === 'batch');
      expect(batch).toHaveLength(2);
      for (const c of batch) {
        expect(c).toMatchObject({ key: '', models: 'gpt-4,gpt-4o', group: 'default,vip', status: 1, priority: 3, other_info: '', tag: '' });
        expect(await abilities(c.id as number)).toHaveLength(4);
      }
      const row = await h.server.ctx.db.db.selectFrom('channels').selectAll().where('id', '=', batch[0]!.id as number).executeTakeFirstOrThrow();
      // Stored sealed (crypto/secret-box.ts); it opens to one of the lines sent.
      expect(['k-one', 'k-two']).toContain(h.server.ctx.channels.open(row).key);
      // Search matches an exact key, never a partial one.
      expect((await root.get('/api/channel/search?keyword=k-one')).body.data).toHaveLength(1);
      expect((await root.get('/api/channel/search?keyword=k-on')).body.data).toHaveLength(0);
      expect((await root.get('/api/channel/search?keyword=&group=vip&model=gpt-4o')).body.data.length).toBeGreaterThanOrEqual(2);
      expect((await root.get('/api/channel/search?keyword=&group=vi&model=')).body.data).toHaveLength(0);
    });

    it('validates name, key, models and JSON fields', async () => {
      expect((await root.post('/api/channel/', { type: 1, name: '', key: '', models: 'a' })).body.success).toBe(false);
      expect((await root.post('/api/channel/', { type: 1, name: 'x', key: 'k', models: '' })).body.success).toBe(false);
      const bad = await root.post('/api/channel/', { type: 1, name: 'x', key: 'k', models: 'a', model_mapping: '{nope' });
      expect(bad.body).toMatchObject({ success: false });
      const azure = await root.post('/api/channel/', { type: 3, name: 'az', key: 'k', models: 'gpt-4', other: '' });
      expect(azure.body.success).toBe(true);
      const az = (await root.get('/api/channel/search?keyword=az')).body.data[0];
      expect(az.other).toBe('2023-06-01-preview');
      // The type's default `other` comes from the shared type table the console prefills from.
      expect((await root.post('/api/channel/', { type: 18, name: 'spark', key: 'a|b|c', models: 'SparkDesk-v3.5', other: '' })).body.success).toBe(true);
      expect((await root.get('/api/channel/search?keyword=spark')).body.data[0].other).toBe('v2.1');
      // A Vertex JSON credential is one key, never split into a channel per line.
      const saKey = '{\n"type": "service_account",\n"project_id": "p1",\n"client_email": "a@p1.iam.gserviceaccount.com",\n"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n"\n}';
      const vertex = await root.post('/api/channel/', { type: 41, name: 'vertex-json', key: saKey, models: 'gemini-pro' });
      expect(vertex.body.success).toBe(true);
      expect((await root.get('/api/channel/search?keyword=vertex-json')).body.data).toHaveLength(1);
      // Composite keys are checked on save, the refusal showing the expected format.
      const badVertex = await root.post('/api/channel/', { type: 41, name: 'vertex-bad', key: '{\n"type": "service_account"\n}', models: 'gemini-pro' });
      expect(badVertex.body).toMatchObject({ success: false, message: expect.stringContaining('project_id, client_email and private_key') });
      const badAws = await root.post('/api/channel/', { type: 33, name: 'aws-bad', key: 'AKIA|secret', models: 'claude-3-haiku-20240307' });
      expect(badAws.body).toMatchObject({ success: false, message: expect.stringContaining('AccessKeyId|SecretAccessKey|Region') });
      expect((await root.post('/api/channel/', { type: 33, name: 'aws-ok', key: 'AKIA|secret|eu-west-1', models: 'claude-3-haiku-20240307' })).body.success).toBe(true);
    });

    it('updates partially (status / priority / weight) and fully, keeping the key when it is empty', async () => {
      await root.post('/api/channel/', { type: 1, name: 'edit-me', key: 'secret-key', models: 'm1', group: 'default' });
      const ch = (await root.get('/api/channel/search?keyword=edit-me')).body.data[0];
      const disabled = await root.put('/api/channel/', { id: ch.id, status: 2 });
      expect(disabled.body.data).toMatchObject({ id: ch.id, status: 2, key: '' });
      expect((await abilities(ch.id)).every((a) => a.enabled === 0)).toBe(true);
      const prio = await root.put('/api/channel/', { id: ch.id, priority: 7 });
      expect(prio.body.data).toMatchObject({ priority: 7, status: 2 });
      expect((await abilities(ch.id))[0]!.priority).toBe(7);
      const full = await root.put('/api/channel/', { ...ch, key: '', models: 'm1,m2', groups: ['default', 'vip'], status: 1, used_quota: 999999 });
      expect(full.body.data).toMatchObject({ models: 'm1,m2', group: 'default,vip', status: 1, used_quota: 0 });
      expect(await abilities(ch.id)).toHaveLength(4);
      const row = await h.server.ctx.db.db.selectFrom('channels').selectAll().where('id', '=', ch.id).executeTakeFirstOrThrow();
      expect(h.server.ctx.channels.open(row).key).toBe('secret-key');
      expect((await root.get(`/api/channel/${ch.id}`)).body.data.key).toBe('');
    });

    it('deletes a channel with its abilities', async () => {
      await root.post('/api/channel/', { type: 1, name: 'delete-me', key: 'k', models: 'm1' });
      const ch = (await root.get('/api/channel/search?keyword=delete-me')).body.data[0];
      expect((await root.del(`/api/channel/${ch.id}/`)).body.success).toBe(true);
      expect(await abilities(ch.id)).toHaveLength(0);
      expect((await root.get(`/api/channel/${ch.id}`)).body.success).toBe(false);
    });

    it('tag mode pages over tags and returns every channel of them', async () => {
      await root.post('/api/channel/', { type: 1, name: 'tagged-a', key: 'k', models: 'm', tag: 'team' });
      await root.post('/api/channel/', { type: 1, name: 'tagged-b', key: 'k', models: 'm', tag: 'team' });
      const r = await root.get('/api/channel/?p=0&page_size=10&tag_mode=true');
      expect((r.body.data as Array<{ tag: string }>).map((c) => c.tag)).toEqual(['team', 'team']);
    });

    it('serves models, type → models, and groups; all admin-only', async () => {
      const models = await root.get('/api/channel/models');
      expect(models.body.data[0]).toMatchObject({ id: expect.any(String), object: 'model', owned_by: expect.any(String) });
      const byType = await root.get('/api/models');
      expect(byType.body.data['1']).toContain('gpt-4o');
      expect((await root.get('/api/group/')).body.data).toEqual(['default', 'vip', 'svip']);
      const user = await newUser(h.server.url, 'plainuser');
      const denied = await user.get('/api/channel/');
      expect(denied.body.success).toBe(false);
      expect(JSON.stringify(denied.body)).not.toContain('secret-key');
      expect((await user.get('/api/group/')).body.success).toBe(false);
    });
  });

  describe('bulk, tag, test, balance and model fetching', () => {
    async function make(name: string, extra: Record<string, unknown> = {}) {
      await root.post('/api/channel/', { type: 1, name, key: 'sk-x', models: 'gpt-4o-mini', base_url: h.fake.url, ...extra });
      return (await root.get(`/api/channel/search?keyword=${name}`)).body.data[0] as { id: number; status: number };
    }

    it('enables, disables and edits every channel of a tag', async () => {
      const a = await make('tg-a', { tag: 'bulk' });
      const b = await make('tg-b', { tag: 'bulk' });
      expect((await root.post('/api/channel/tag/disabled', { tag: 'bulk' })).body.success).toBe(true);
      for (const c of [a, b]) {
        expect((await root.get(`/api/channel/${c.id}`)).body.data.status).toBe(2);
        expect((await abilities(c.id)).every((x) => x.enabled === 0)).toBe(true);
      }
      await root.post('/api/channel/tag/enabled', { tag: 'bulk' });
      expect((await root.get(`/api/channel/${a.id}`)).body.data.status).toBe(1);
      await root.put('/api/channel/tag', { tag: 'bulk', new_tag: 'bulk2', priority: 5, models: 'm-x,m-y', groups: '' });
      const after = (await root.get(`/api/channel/${b.id}`)).body.data;
      expect(after).toMatchObject({ tag: 'bulk2', priority: 5, models: 'm-x,m-y' });
      expect((await abilities(b.id)).map((x) => x.model)).toEqual(['m-x', 'm-y']);
    });

    it('deletes a batch and the disabled ones, and fix rebuilds abilities', async () => {
      const a = await make('del-a');
      const b = await make('del-b');
      const c = await make('del-c');
      expect((await root.post('/api/channel/batch', { ids: [a.id, b.id] })).body.data).toBe(2);
      await root.put('/api/channel/', { id: c.id, status: 2 });
      expect((await root.del('/api/channel/disabled')).body.data).toBeGreaterThanOrEqual(1);
      expect(await abilities(c.id)).toHaveLength(0);
      const d = await make('fix-d');
      await h.server.ctx.db.db.deleteFrom('abilities').where('channel_id', '=', d.id).execute();
      expect((await root.post('/api/channel/fix')).body.success).toBe(true);
      expect(await abilities(d.id)).toHaveLength(1);
    });

    it('tests a channel, reads its balance and fetches its models', async () => {
      const ch = await make('probe');
      const test = await root.get(`/api/channel/test/${ch.id}?model=`);
      expect(test.body).toMatchObject({ success: true, time: expect.any(Number) });
      expect((await root.get(`/api/channel/${ch.id}`)).body.data.test_time).toBeGreaterThan(0);
      const bal = await root.get(`/api/channel/update_balance/${ch.id}/`);
      expect(bal.body).toMatchObject({ success: true, balance: expect.any(Number) });
      const models = await root.get(`/api/channel/fetch_models/${ch.id}`);
      expect(models.body.data).toContain('gpt-4o-mini');
    });
  });
});
