import { OPTION_KEYS, OPTION_REGISTRY, optionValue } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const STATUS_FIELDS = [
  'version', 'start_time', 'system_name', 'logo', 'footer_html', 'server_address', 'quota_per_unit', 'display_in_currency',
  'chats', 'chat_link', 'chat_link2', 'enable_drawing', 'enable_task', 'enable_data_export', 'data_export_default_time',
  'default_collapse_sidebar', 'mj_notify_enabled', 'top_up_link', 'min_topup', 'enable_online_topup', 'price',
  'turnstile_check', 'turnstile_site_key', 'email_verification', 'github_oauth', 'github_client_id', 'linuxdo_oauth',
  'linuxdo_client_id', 'telegram_oauth', 'telegram_bot_name', 'wechat_login', 'wechat_qrcode', 'enable_batch_update', 'display_token_stat',
  'oidc_enabled', 'oidc_client_id',
];

describe.each(testDbKinds())('options and status on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  it('serves every public status field with the defaults', async () => {
    const r = await new ApiClient(srv.url).get('/api/status');
    expect(r.body.success).toBe(true);
    for (const f of STATUS_FIELDS) expect(r.body.data, f).toHaveProperty(f);
    expect(r.body.data).toMatchObject({ system_name: 'ModelGate', quota_per_unit: 500000, display_in_currency: true, price: 7.3, min_topup: 1, data_export_default_time: 'hour', enable_online_topup: false });
    expect(Array.isArray(r.body.data.chats)).toBe(true);
    expect(r.body.data.chats.length).toBeGreaterThan(0);
    expect(r.body.data.version).toMatch(/^v\d+\.\d+\.\d+/);
  });

  it('lists options as strings without secrets, and applies a change at once', async () => {
    const list = (await root.get('/api/option/')).body.data as Array<{ key: string; value: string }>;
    const keys = list.map((o) => o.key);
    for (const k of ['EmailDomainWhitelist', 'ModelRatio', 'GroupRatio', 'UserUsableGroups', 'Chats', 'PasswordLoginEnabled', 'QuotaPerUnit']) expect(keys).toContain(k);
    for (const k of ['GitHubClientSecret', 'SMTPToken', 'EpayKey', 'TurnstileSecretKey', 'WeChatServerToken', 'TelegramBotToken']) expect(keys).not.toContain(k);
    for (const o of list) expect(typeof o.value).toBe('string');
    expect(() => JSON.parse(list.find((o) => o.key === 'ModelRatio')!.value)).not.toThrow();

    expect((await root.put('/api/option/', { key: 'SystemName', value: 'My Gate' })).body.success).toBe(true);
    expect((await root.put('/api/option/', { key: 'DisplayInCurrencyEnabled', value: false })).body.success).toBe(true);
    const status = (await root.get('/api/status')).body.data;
    expect(status).toMatchObject({ system_name: 'My Gate', display_in_currency: false });
    expect((await root.put('/api/option/', { key: 'DisplayInCurrencyEnabled', value: 'true' })).body.success).toBe(true);
  });

  it('serves notice, about and home page content as strings', async () => {
    await root.put('/api/option/', { key: 'Notice', value: '# Hello' });
    const anon = new ApiClient(srv.url);
    expect((await anon.get('/api/notice')).body.data).toBe('# Hello');
    expect((await anon.get('/api/about')).body.data).toBe('');
    expect((await anon.get('/api/home_page_content')).body.data).toBe('');
  });

  it('validates values with the spec §5 rules', async () => {
    const bad = async (key: string, value: unknown) => (await root.put('/api/option/', { key, value })).body;
    expect(await bad('ModelRatio', '{not json')).toMatchObject({ success: false, message: expect.stringMatching(/Not a valid JSON string/) });
    expect(await bad('GroupRatio', '{"default":-1}')).toMatchObject({ success: false, message: expect.stringMatching(/negative/) });
    expect(await bad('Chats', '{"a":1}')).toMatchObject({ success: false });
    expect(await bad('Chats', '[{"NextChat":"https://chat.example/#/?settings={key}","Other":"https://x"}]')).toMatchObject({ success: false, message: expect.stringMatching(/^Chats must be a JSON list.*: Chats\[0\]$/) });
    expect(await bad('Chats', '[{"Web":"not a link"}]')).toMatchObject({ success: false, message: expect.stringMatching(/Chats\[0\] Web$/) });
    expect(await bad('Chats', '[{"Evil":"javascript:alert(1)"}]')).toMatchObject({ success: false, message: expect.stringMatching(/may not use javascript:/) });
    expect(await bad('Chats', '["https://chat.example"]')).toMatchObject({ success: false, message: expect.stringMatching(/^Chats must be a JSON list/) });
    const chats = '[{"Web":"https://chat.example/?key={key}&url={address}"},{"App":"ama://set-api-key?server={address}&key={key}"}]';
    expect(await bad('Chats', chats)).toMatchObject({ success: true });
    expect((await new ApiClient(srv.url).get('/api/status')).body.data.chats).toEqual(JSON.parse(chats));
    expect(await bad('PasswordLoginEnabled', 'yes')).toMatchObject({ success: false });
    expect(await bad('RetryTimes', 'many')).toMatchObject({ success: false });
    expect(await bad('DataExportInterval', '0')).toMatchObject({ success: false, message: expect.stringMatching(/below the allowed minimum.*DataExportInterval ≥ 1/) });
    expect(await bad('QuotaPerUnit', '0')).toMatchObject({ success: false, message: expect.stringMatching(/QuotaPerUnit ≥ 1/) });
    expect(await bad('NoSuchKey', '1')).toMatchObject({ success: false, message: expect.stringMatching(/Unknown option/) });
    expect(await bad('GitHubOAuthEnabled', 'true')).toMatchObject({ success: false, message: expect.stringMatching(/GitHub/) });
    expect(await bad('TurnstileCheckEnabled', 'true')).toMatchObject({ success: false, message: expect.stringMatching(/Turnstile/) });
    expect(await bad('WeChatAuthEnabled', 'true')).toMatchObject({ success: false, message: expect.stringMatching(/WeChat/) });
    expect(await bad('PayAddress', 'https://pay.example.com')).toMatchObject({ success: false, message: expect.stringMatching(/server address first/) });

    expect((await root.put('/api/option/', { key: 'ServerAddress', value: 'https://gate.example.com///' })).body.success).toBe(true);
    expect((await root.put('/api/option/', { key: 'PayAddress', value: 'https://pay.example.com/' })).body.success).toBe(true);
    const list = (await root.get('/api/option/')).body.data as Array<{ key: string; value: string }>;
    expect(list.find((o) => o.key === 'ServerAddress')!.value).toBe('https://gate.example.com');
    expect(list.find((o) => o.key === 'PayAddress')!.value).toBe('https://pay.example.com');

    await root.put('/api/option/', { key: 'GitHubClientId', value: 'id' });
    await root.put('/api/option/', { key: 'GitHubClientSecret', value: 'secret' });
    expect((await root.put('/api/option/', { key: 'GitHubOAuthEnabled', value: 'true' })).body.success).toBe(true);
    expect((await new ApiClient(srv.url).get('/api/status')).body.data).toMatchObject({ github_oauth: true, github_client_id: 'id' });
  });

  it('serves every public option of the shared registry where the registry says, and nothing secret', async () => {
    const anon = new ApiClient(srv.url);
    const status = (await anon.get('/api/status')).body.data as Record<string, unknown>;
    const list = (await root.get('/api/option/')).body.data as Array<{ key: string; value: string }>;
    const stored = new Map(list.map((o) => [o.key, o.value]));
    for (const key of OPTION_KEYS) {
      const spec: { access: string; publicAs?: string } = OPTION_REGISTRY[key];
      if (spec.access === 'secret') expect(stored.has(key), key).toBe(false);
      else expect(stored.has(key), key).toBe(true);
      if (!spec.publicAs) continue;
      const served = spec.publicAs.startsWith('/') ? (await anon.get(spec.publicAs)).body.data : status[spec.publicAs];
      // The server address falls back to the listening address while it is unset.
      if (key === 'ServerAddress' && !stored.get(key)) continue;
      expect(served, `${key} as ${spec.publicAs}`).toEqual(optionValue(key, stored.get(key)));
    }
  });

  it('persists options across a restart (reload from the database)', async () => {
    await root.put('/api/option/', { key: 'Footer', value: '<b>footer</b>' });
    srv.ctx.options['values'].set('Footer', 'stale');
    await srv.ctx.options.reload();
    expect(srv.ctx.options.str('Footer')).toBe('<b>footer</b>');
  });
});
