import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, rootClient } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/**
 * Issue 29: root's own save took `ServerAddress=javascript:…`, and an allow list of `0.0.0.0/0`
 * switched the outbound guard off. The rules are the shared ones (option-rules.ts) the import
 * applies too (import/import-rules.test.ts).
 */
const URL_INVALID = 'Must be a full http:// or https:// URL (without a user name or password)';
const TOO_BROAD =
  'Range too broad: at most a /8 for IPv4, a /7 for IPv6 and a /104 for IPv4-mapped IPv6 (a wider one would let outbound fetches reach this host and private networks)';

/** Every address option (an http(s) base URL) and every link option (opened or framed by the console). */
const ADDRESSES = ['ServerAddress', 'WorkerUrl', 'PayAddress', 'CustomCallbackAddress', 'WeChatServerAddress', 'GitHubOAuthEndpoint', 'GitHubApiEndpoint', 'LinuxDOOAuthEndpoint', 'OIDCWellKnown'];
const LINKS = ['TopUpLink', 'ChatLink', 'ChatLink2'];

describe.each(testDbKinds())('URL and allow-list options on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  const save = async (key: string, value: string) => (await root.put('/api/option/', { key, value })).body;
  const stored = async (key: string) => (await srv.ctx.db.db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst())?.value;

  it('refuses javascript:, data: and other schemes in every address and link option, even from root', async () => {
    expect(await save('ServerAddress', 'https://gate.example.com')).toEqual({ success: true, message: '' });
    for (const key of [...ADDRESSES, ...LINKS]) {
      for (const value of ['javascript:alert(1)', 'JavaScript:alert(document.cookie)//', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox', 'file:///etc/passwd', 'ftp://files.example.com', '//evil.example', 'gate.example.com']) {
        expect(await save(key, value), `${key} = ${value}`).toEqual({ success: false, message: `${URL_INVALID}: ${key}` });
      }
    }
    // Credentials and whitespace are no part of an address either.
    expect(await save('ServerAddress', 'https://user:pw@gate.example.com')).toEqual({ success: false, message: `${URL_INVALID}: ServerAddress` });
    expect(await save('ChatLink', 'https://chat.example/ x')).toEqual({ success: false, message: `${URL_INVALID}: ChatLink` });
    root.lang = 'zh';
    expect(await save('ServerAddress', 'javascript:alert(1)')).toEqual({ success: false, message: '必须是以 http:// 或 https:// 开头的完整网址（不含账号密码）: ServerAddress' });
    root.lang = 'en';
    // Nothing refused was stored, and the public status still serves the last good address.
    expect(await stored('ServerAddress')).toBe('https://gate.example.com');
    expect(await stored('TopUpLink')).toBeUndefined();
    expect((await new ApiClient(srv.url).get('/api/status')).body.data).toMatchObject({ server_address: 'https://gate.example.com', top_up_link: '', chat_link: '' });
  });

  it('keeps taking http(s) addresses, chat link templates and empty values', async () => {
    expect(await save('ServerAddress', 'http://10.0.0.5:3000/')).toEqual({ success: true, message: '' });
    expect(await stored('ServerAddress')).toBe('http://10.0.0.5:3000');
    expect(await save('TopUpLink', ' https://shop.example.com/buy?item=1 ')).toEqual({ success: true, message: '' });
    expect(await stored('TopUpLink')).toBe('https://shop.example.com/buy?item=1');
    expect(await save('ChatLink', 'https://chat.example/#/?settings={"key":"{key}","url":"{address}"}')).toEqual({ success: true, message: '' });
    expect(await save('TopUpLink', '')).toEqual({ success: true, message: '' });
    expect((await new ApiClient(srv.url).get('/api/status')).body.data).toMatchObject({ top_up_link: '', chat_link: 'https://chat.example/#/?settings={"key":"{key}","url":"{address}"}' });
  });

  it('refuses an outbound allow list that would open everything, naming the entries', async () => {
    for (const value of ['0.0.0.0/0', '10.0.0.1, 0.0.0.0/1', '::/0', '::/8', '::ffff:0:0/96', '::ffff:7f00:0/100', '127.0.0.0/7']) {
      const broad = value.split(', ').filter((e) => e !== '10.0.0.1').join(', ');
      expect(await save('OutboundAllowedRanges', value), value).toEqual({ success: false, message: `${TOO_BROAD}: OutboundAllowedRanges: ${broad}` });
    }
    expect(await stored('OutboundAllowedRanges')).toBeUndefined();
    expect(srv.ctx.options.str('OutboundAllowedRanges')).toBe('');
    // The widest ranges an operator can mean are still taken: a private /8, IPv6 unique-local, a /104 of mapped IPv4.
    expect(await save('OutboundAllowedRanges', '10.0.0.0/8 fc00::/7 ::ffff:a00:0/104 127.0.0.1')).toEqual({ success: true, message: '' });
    expect(await stored('OutboundAllowedRanges')).toBe('10.0.0.0/8,fc00::/7,::ffff:a00:0/104,127.0.0.1');
  });

  it('refuses group and model names with control or bidi characters in the JSON maps', async () => {
    const before = await stored('GroupRatio');
    expect(await save('GroupRatio', JSON.stringify({ default: 1, 'vip\u202egnp': 2 }))).toEqual({
      success: false,
      message: 'Must not contain control characters or bidirectional-control characters: GroupRatio: "vip\\u202egnp"',
    });
    expect(await save('UserUsableGroups', JSON.stringify({ 'a\u0007': 'bell' }))).toMatchObject({ success: false, message: expect.stringMatching(/^Must not contain control.*UserUsableGroups/) });
    expect(await stored('GroupRatio')).toBe(before);
  });
});
