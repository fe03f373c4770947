import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOutboundResolver } from '../../net/guarded-fetch.js';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const REFUSED_EN = "A channel's base URL may not point into this server's own network (loopback, private, link-local or cloud metadata addresses) unless the super admin allows the range in Allowed private ranges";
const REFUSED_ZH = '渠道的 Base URL 不能指向本服务器自己的网络（回环、内网、链路本地或云元数据地址），除非超级管理员在“允许访问的内网网段”中放行';

/**
 * A non-root admin may point a channel at any host on the internet, but not into this server's own
 * address space: the relay would carry prompts and the channel's key there, and the channel probes
 * would scan the internal network. Root may; OutboundAllowedRanges opens a range for every admin.
 * Names are answered by a stub DNS (nothing here connects anywhere: a save only resolves).
 */
describe('where a non-root admin may point a channel', () => {
  let server: TestServer;
  let root: ApiClient;
  let admin: ApiClient;
  const channelCount = async () => Number((await server.ctx.db.db.selectFrom('channels').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const create = (c: ApiClient, base_url: string, name = 'target') => c.post('/api/channel/', { type: 1, name, key: 'sk-admins-own-key', models: 'gpt-4o-mini', group: 'default', base_url });
  const idOf = async (name: string) => (await server.ctx.db.db.selectFrom('channels').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;

  beforeAll(async () => {
    server = await startTestServer();
    setOutboundResolver(async (name) => {
      if (name === 'api.public.test') return [{ address: '8.8.8.8', family: 4 }];
      if (name === 'localhost') return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }];
      if (name === 'intranet.test') return [{ address: '10.1.1.1', family: 4 }];
      if (name === 'split.test') return [{ address: '8.8.8.8', family: 4 }, { address: '192.168.0.10', family: 4 }];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    });
    root = await rootClient(server.url);
    admin = await newUser(server.url, 'targetadmin');
    expect((await root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.data).toMatchObject({ role: 10 });
    expect((await admin.login('targetadmin', 'password123')).body.success).toBe(true);
  });
  afterAll(async () => {
    setOutboundResolver(undefined);
    await server?.close();
  });

  it('refuses every address of this host, a private network or a metadata service, in both languages; nothing is saved', async () => {
    const before = await channelCount();
    const refused = [
      ['http://127.0.0.1:3000', '127.0.0.1'],
      ['http://localhost:3000', 'localhost'],
      ['http://2130706433', '127.0.0.1'],
      ['http://[::1]:8080/v1', '::1'],
      ['http://[::ffff:7f00:1]', '::ffff:7f00:1'],
      ['http://169.254.169.254/latest', '169.254.169.254'],
      ['https://10.0.0.5', '10.0.0.5'],
      ['https://192.168.1.2', '192.168.1.2'],
      ['http://100.64.1.1', '100.64.1.1'],
      ['https://intranet.test', 'intranet.test'],
      ['https://split.test', 'split.test'],
    ];
    for (const [url, shown] of refused) expect([url, (await create(admin, url!)).body]).toEqual([url, { success: false, message: `${REFUSED_EN}: ${shown}` }]);
    admin.lang = 'zh';
    const zh = await create(admin, 'http://127.0.0.1:3000');
    admin.lang = 'en';
    expect(zh.body).toEqual({ success: false, message: `${REFUSED_ZH}: 127.0.0.1` });
    expect(await channelCount()).toBe(before);
  });

  it('lets an admin point at a public host, at a name that does not resolve, or at the default host', async () => {
    expect((await create(admin, 'https://api.public.test/v1', 'public')).body).toEqual({ success: true, message: '' });
    expect((await create(admin, 'https://not-resolving.test', 'unresolved')).body.success).toBe(true);
    expect((await create(admin, '', 'default-host')).body.success).toBe(true);
  });

  it('checks an edit only when the base URL changes: root’s loopback channel stays editable', async () => {
    expect((await create(root, 'http://127.0.0.1:3000', 'roots-local')).body.success).toBe(true);
    const id = await idOf('roots-local');
    expect((await admin.put('/api/channel/', { id, name: 'roots-local', models: 'gpt-4o-mini,gpt-4o', key: '' })).body.success).toBe(true);
    expect((await admin.put('/api/channel/', { id, base_url: 'http://127.0.0.1:3000/', key: '' })).body.success).toBe(true);
    // Repointing (with a key, so the key guard is satisfied) is judged like a create.
    expect((await admin.put('/api/channel/', { id, base_url: 'http://169.254.169.254', key: 'sk-new' })).body).toEqual({ success: false, message: `${REFUSED_EN}: 169.254.169.254` });
    const pub = await idOf('public');
    expect((await admin.put('/api/channel/', { id: pub, base_url: 'http://192.168.1.1', key: 'sk-new' })).body.message).toBe(`${REFUSED_EN}: 192.168.1.1`);
    expect((await server.ctx.db.db.selectFrom('channels').select('base_url').where('id', '=', pub).executeTakeFirstOrThrow()).base_url).toBe('https://api.public.test/v1');
    expect((await root.put('/api/channel/', { id: pub, base_url: 'http://192.168.1.1', key: '' })).body.success).toBe(true);
  });

  it('applies to a model list fetched from a typed-in base URL', async () => {
    const r = await admin.post('/api/channel/fetch_models', { base_url: 'http://127.0.0.1:1', key: 'sk-x' });
    expect(r.body).toEqual({ success: false, message: `${REFUSED_EN}: 127.0.0.1` });
    // Root's request goes out (and finds nothing listening).
    expect((await root.post('/api/channel/fetch_models', { base_url: 'http://127.0.0.1:1', key: 'sk-x' })).body.message).toBe('Failed to fetch the model list: ECONNREFUSED');
  });

  it('lets every admin reach a range the operator allowed, and no other', async () => {
    await server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32,10.1.1.0/24');
    try {
      expect((await create(admin, 'http://127.0.0.1:3000', 'allowed-local')).body.success).toBe(true);
      expect((await create(admin, 'https://intranet.test', 'allowed-intranet')).body.success).toBe(true);
      expect((await create(admin, 'http://127.0.0.2:3000')).body.message).toBe(`${REFUSED_EN}: 127.0.0.2`);
      expect((await create(admin, 'http://169.254.169.254')).body.message).toBe(`${REFUSED_EN}: 169.254.169.254`);
    } finally {
      await server.ctx.options.set('OutboundAllowedRanges', '');
    }
  });
});
