import { describe, expect, it } from 'vitest';
import { OPTION_KEYS, OPTION_REGISTRY, isOptionKey, isSecretOption, optionValue, type OptionKey } from './option-registry.js';
import { normaliseOption } from './option-rules.js';
import { DEFAULT_CACHE_RATIO, DEFAULT_CREATE_CACHE_RATIO } from './default-ratios.js';

const defaults = (overrides: Partial<Record<OptionKey, string>> = {}) => (k: OptionKey) => overrides[k] ?? OPTION_REGISTRY[k].default;

describe('option registry', () => {
  it('holds every option of spec §3', () => {
    const spec =
      'PasswordLoginEnabled PasswordRegisterEnabled EmailVerificationEnabled GitHubOAuthEnabled GitHubClientId GitHubClientSecret LinuxDOOAuthEnabled LinuxDOClientId LinuxDOClientSecret WeChatAuthEnabled WeChatServerAddress WeChatServerToken WeChatAccountQRCodeImageURL TelegramOAuthEnabled TelegramBotToken TelegramBotName TurnstileCheckEnabled TurnstileSiteKey TurnstileSecretKey RegisterEnabled EmailDomainRestrictionEnabled EmailAliasRestrictionEnabled EmailDomainWhitelist SMTPServer SMTPPort SMTPAccount SMTPFrom SMTPToken SMTPSSLEnabled ServerAddress WorkerUrl WorkerValidKey PayAddress EpayId EpayKey CustomCallbackAddress Price MinTopUp TopupGroupRatio Notice SystemName Logo HomePageContent About Footer TopUpLink ChatLink ChatLink2 QuotaPerUnit RetryTimes DisplayInCurrencyEnabled DisplayTokenStatEnabled DefaultCollapseSidebar DrawingEnabled MjNotifyEnabled MjAccountFilterEnabled MjForwardUrlEnabled MjModeClearEnabled MjActionCheckSuccessEnabled CheckSensitiveEnabled CheckSensitiveOnPromptEnabled SensitiveWords LogConsumeEnabled DataExportEnabled DataExportInterval DataExportDefaultTime ChannelDisableThreshold QuotaRemindThreshold AutomaticDisableChannelEnabled AutomaticEnableChannelEnabled QuotaForNewUser PreConsumedQuota QuotaForInviter QuotaForInvitee Chats GroupRatio UserUsableGroups ModelPrice ModelRatio CompletionRatio';
    for (const key of spec.split(' ')) expect(isOptionKey(key), key).toBe(true);
  });

  it('holds the cache ratio maps (issue 30) with the default tables, root-only', () => {
    expect(optionValue('CacheRatio', undefined)).toEqual(DEFAULT_CACHE_RATIO);
    expect(optionValue('CreateCacheRatio', undefined)).toEqual(DEFAULT_CREATE_CACHE_RATIO);
    expect([OPTION_REGISTRY.CacheRatio.access, OPTION_REGISTRY.CreateCacheRatio.shape]).toEqual(['root', 'ratios']);
    expect((optionValue('CacheRatio', undefined) as Record<string, number>)['gpt-5']).toBe(0.1);
  });

  it('keeps secret exactly the keys the reference never returns (ending in Token, Secret or Key, but the Turnstile site key)', () => {
    for (const key of OPTION_KEYS) expect(isSecretOption(key), key).toBe(/(Token|Secret|Key)$/.test(key) && key !== 'TurnstileSiteKey');
  });

  it('names only real options as requirements, and serves each public option in one place', () => {
    const served = new Set<string>();
    for (const key of OPTION_KEYS) {
      const spec = OPTION_REGISTRY[key] as { access: string; publicAs?: string; requires?: { keys: readonly string[] } };
      for (const k of spec.requires?.keys ?? []) expect(isOptionKey(k), `${key} requires ${k}`).toBe(true);
      expect(spec.access === 'public', key).toBe(spec.publicAs !== undefined);
      if (spec.publicAs) {
        expect(served.has(spec.publicAs), spec.publicAs).toBe(false);
        served.add(spec.publicAs);
      }
    }
  });

  it('accepts every default as it is (a default that fails its own rule could never be saved back)', () => {
    const filled = defaults({ ServerAddress: 'https://gate.example.com' });
    for (const key of OPTION_KEYS) expect(normaliseOption(key, OPTION_REGISTRY[key].default, filled), key).toMatchObject({ ok: true });
  });

  it('types stored strings by kind, falling back to the default', () => {
    expect(optionValue('DisplayInCurrencyEnabled', 'false')).toBe(false);
    expect(optionValue('QuotaPerUnit', '1000')).toBe(1000);
    expect(optionValue('QuotaPerUnit', 'abc')).toBe(500000);
    expect(optionValue('SystemName', undefined)).toBe('ModelGate');
    expect(optionValue('GroupRatio', '{"a":2}')).toEqual({ a: 2 });
    expect(optionValue('GroupRatio', '{bad')).toEqual({ default: 1, vip: 1, svip: 1 });
  });
});

describe('normaliseOption (spec §5)', () => {
  const check = (key: string, raw: unknown, current = defaults()) => normaliseOption(key, raw, current);

  it.each([
    ['NoSuchOption', 'x', 'OPTION_UNKNOWN'],
    ['RegisterEnabled', 'yes', 'OPTION_NOT_BOOL'],
    ['SMTPPort', '58.5', 'OPTION_NOT_NUMBER'],
    ['QuotaForNewUser', '-1', 'QUOTA_NEGATIVE'],
    ['QuotaForNewUser', '9007199254740993', 'INT_OUT_OF_RANGE'],
    ['QuotaPerUnit', '', 'OPTION_NOT_NUMBER'],
    ['Price', '-2', 'QUOTA_NEGATIVE'],
    ['ModelRatio', '{not json', 'OPTION_NOT_JSON'],
    ['GroupRatio', '{"default":-1}', 'OPTION_NEGATIVE_RATIO'],
    ['ModelPrice', '{"x":"1"}', 'OPTION_NOT_NUMBER'],
    ['CacheRatio', '{"gpt-5":-0.1}', 'OPTION_NEGATIVE_RATIO'],
    ['CacheRatio', '{"gpt-5":"0.1"}', 'OPTION_NOT_NUMBER'],
    ['CacheRatio', '[0.1]', 'OPTION_NOT_JSON'],
    ['CreateCacheRatio', '{"claude-opus-4-8":-1}', 'OPTION_NEGATIVE_RATIO'],
    ['CreateCacheRatio', '{"claude-opus-4-8":null}', 'OPTION_NOT_NUMBER'],
    ['Chats', '{}', 'OPTION_CHATS_INVALID'],
    ['Chats', 'not json', 'OPTION_NOT_JSON'],
    ['Chats', '[{"a":"javascript:alert(1)"}]', 'OPTION_CHATS_UNSAFE'],
    ['UserUsableGroups', '[]', 'OPTION_NOT_JSON'],
    ['Price', '8', 'OPTION_SERVER_ADDRESS_FIRST'],
    ['GitHubOAuthEnabled', true, 'OPTION_GITHUB_CONFIG'],
    ['TurnstileCheckEnabled', 'true', 'OPTION_TURNSTILE_CONFIG'],
  ] as const)('%s = %j → %s', (key, raw, code) => {
    expect(check(key, raw)).toMatchObject({ ok: false, code });
  });

  it.each([
    ['RegisterEnabled', ' TRUE ', 'true'],
    ['RetryTimes', '-1', '-1'],
    ['ServerAddress', ' https://gate.example.com/// ', 'https://gate.example.com'],
    ['SMTPPort', 465, '465'],
    ['Chats', [{ a: 'https://chat.example/#/?key={key}' }], '[{"a":"https://chat.example/#/?key={key}"}]'],
    ['Notice', null, ''],
    ['GitHubOAuthEnabled', 'false', 'false'],
  ] as const)('%s = %j → %j', (key, raw, stored) => {
    expect(check(key, raw)).toEqual({ ok: true, value: stored });
  });

  it('lets a switch on once its settings are filled', () => {
    expect(check('GitHubOAuthEnabled', 'true', defaults({ GitHubClientId: 'id', GitHubClientSecret: 's' }))).toEqual({ ok: true, value: 'true' });
    expect(check('EmailDomainRestrictionEnabled', 'true', defaults({ EmailDomainWhitelist: '  ' }))).toMatchObject({ code: 'OPTION_EMAIL_DOMAIN_CONFIG' });
  });
});

describe('IP list options', () => {
  const current = (k: OptionKey) => OPTION_REGISTRY[k].default;
  it('accepts addresses and CIDR ranges of both families and stores them comma-separated', () => {
    expect(normaliseOption('OutboundAllowedRanges', ' 10.0.0.0/8\n192.168.1.5, fd00::/8 2001:db8::1 ::1', current)).toEqual({ ok: true, value: '10.0.0.0/8,192.168.1.5,fd00::/8,2001:db8::1,::1' });
    expect(normaliseOption('OutboundAllowedRanges', '', current)).toEqual({ ok: true, value: '' });
  });
  it('names the entries that are not addresses or ranges', () => {
    for (const bad of ['10.0.0.0/33', '256.1.1.1', '010.1.1.1', 'example.com', '1:2:3:4:5:6:7:8:9', '1::2::3', 'fd00::/129', '10.0.0.0/8/1']) {
      expect(normaliseOption('OutboundAllowedRanges', `10.0.0.1, ${bad}`, current)).toEqual({ ok: false, code: 'OPTION_IP_LIST_INVALID', detail: `OutboundAllowedRanges: ${bad}` });
    }
  });
});

describe('URL options and the allow list (issue 29)', () => {
  const current = (k: OptionKey) => OPTION_REGISTRY[k].default;
  it('takes only http(s) URLs with a host and no credentials for addresses, and http(s) links for link options', () => {
    for (const bad of ['javascript:alert(1)', ' JAVASCRIPT:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'ftp://x.example', 'https://', 'https://u:p@x.example', 'https://x.example/a b', 'x.example']) {
      expect(normaliseOption('ServerAddress', bad, current), bad).toEqual({ ok: false, code: 'OPTION_URL_INVALID', detail: 'ServerAddress' });
      expect(normaliseOption('ChatLink', bad, current).ok, bad).toBe(bad === 'https://u:p@x.example');
    }
    expect(normaliseOption('ChatLink', 'https://', current)).toEqual({ ok: false, code: 'OPTION_URL_INVALID', detail: 'ChatLink' });
    expect(normaliseOption('WorkerUrl', 'HTTPS://worker.example/', current)).toEqual({ ok: true, value: 'HTTPS://worker.example' });
    expect(normaliseOption('TopUpLink', 'https://shop.example/?a={key}', current)).toEqual({ ok: true, value: 'https://shop.example/?a={key}' });
    expect(normaliseOption('OIDCWellKnown', '', current)).toEqual({ ok: true, value: '' });
  });

  it('refuses allow-list ranges wider than a /8 (IPv4), a /7 (IPv6) or a /104 of IPv4-mapped addresses', () => {
    for (const broad of ['0.0.0.0/0', '128.0.0.0/1', '10.0.0.0/7', '::/0', '::/6', '::/8', '::/80', '::ffff:0:0/96', '::ffff:7f00:0/103', '0:0:0:0:0:ffff::/100']) {
      expect(normaliseOption('OutboundAllowedRanges', `10.1.2.3, ${broad}`, current), broad).toEqual({ ok: false, code: 'OPTION_IP_RANGE_TOO_BROAD', detail: `OutboundAllowedRanges: ${broad}` });
    }
    for (const fine of ['10.0.0.0/8', '0.0.0.0/8', '169.254.169.254', 'fc00::/7', 'fe80::/10', '::1', '::/96', '::ffff:a00:0/104', '::ffff:7f00:1', '2001:db8::/32', '64:ff9b::/96']) {
      expect(normaliseOption('OutboundAllowedRanges', fine, current), fine).toEqual({ ok: true, value: fine });
    }
  });

  it('refuses control and bidi characters in the names of a JSON map', () => {
    expect(normaliseOption('GroupRatio', '{"a\\u202eb":1}', current)).toEqual({ ok: false, code: 'TEXT_CONTROL_CHARS', detail: 'GroupRatio: "a\\u202eb"' });
    expect(normaliseOption('ModelRatio', '{"gpt\\n4":1}', current)).toEqual({ ok: false, code: 'TEXT_CONTROL_CHARS', detail: 'ModelRatio: "gpt\\n4"' });
  });
});
