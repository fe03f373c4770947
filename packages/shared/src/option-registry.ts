/**
 * The option registry (spec §3 "Options", reference §8.2): every key with its type, default, who
 * may read it and what saving it requires. Options travel and are stored as strings; the server's
 * OptionsService and the console's settings read this one table.
 */
import type { ServerMessageCode } from './messages.js';
import { DEFAULT_CHATS, DEFAULT_USABLE_GROUPS } from './default-data.js';
import { DEFAULT_CACHE_RATIO, DEFAULT_COMPLETION_RATIO, DEFAULT_CREATE_CACHE_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from './default-ratios.js';
import { DEFAULT_VIDEO_PRICE } from './video.js';

/** How an option's string value is validated and typed. */
/** `address`: an http(s) base URL (trailing slashes dropped); `link`: an http(s) link the console opens or frames. */
/** `timezone`: an IANA zone name ('' = the server's own zone). */
export type OptionKind = 'bool' | 'int' | 'float' | 'json' | 'string' | 'address' | 'link' | 'iplist' | 'timezone';

/**
 * Who may read a value: `public` — anyone, through `publicAs` (a `/api/status` field or a public
 * path); `admin` — admins, through a management call; `root` — only the super admin's option list
 * (`GET /api/option/`); `secret` — never leaves the server.
 */
export type OptionAccess = 'public' | 'admin' | 'root' | 'secret';

/** What a JSON option must hold: a map of non-negative ratios, a map of names, or a list of chat clients. */
export type JsonShape = 'ratios' | 'names' | 'chats' | 'videoPrices' | 'any';

export interface OptionSpec<K extends OptionKind = OptionKind> {
  kind: K;
  default: string;
  access: OptionAccess;
  /** The `/api/status` field, or the public path, that serves a public option. */
  publicAs?: string;
  shape?: JsonShape;
  /** Integer options are counts and quotas: negative only where said. */
  allowNegative?: boolean;
  /** The smallest value a number option takes (spec §5: the dashboard interval is at least 1 minute). */
  min?: number;
  /**
   * Options that must be filled before this one is saved (a switch: before it is turned on), and
   * the message when they are not.
   */
  requires?: { keys: readonly string[]; code: ServerMessageCode };
}

type Access = { access?: OptionAccess; publicAs?: string; requires?: OptionSpec['requires'] };
const make = <K extends OptionKind>(kind: K, value: string, a: Access & Partial<OptionSpec>): OptionSpec<K> => ({
  ...a,
  kind,
  default: value,
  access: a.access ?? (a.publicAs ? 'public' : 'root'),
});
const bool = (v: boolean, a: Access = {}) => make('bool', String(v), a);
const int = (v: number, a: Access & { allowNegative?: boolean; min?: number } = {}) => make('int', String(v), a);
const float = (v: number, a: Access & { min?: number } = {}) => make('float', String(v), a);
const text = (v = '', a: Access = {}) => make('string', v, a);
const secret = () => make('string', '', { access: 'secret' });
const json = (v: unknown, shape: JsonShape, a: Access = {}) => make('json', JSON.stringify(v, null, 2), { ...a, shape });
const address = (a: Access = {}) => make('address', '', a);
const link = (a: Access = {}) => make('link', '', a);
const ipList = (a: Access = {}) => make('iplist', '', a);
const timeZone = (a: Access = {}) => make('timezone', '', a);
const pub = (publicAs: string): Access => ({ publicAs });

const DEFAULT_GROUP_RATIO = { default: 1, vip: 1, svip: 1 };

/** Saving any payment option needs the server address (the payment notify URL is built from it). */
const PAYMENT: Access = { requires: { keys: ['ServerAddress'], code: 'OPTION_SERVER_ADDRESS_FIRST' } };
const needs = (code: ServerMessageCode, ...keys: string[]): Access => ({ requires: { keys, code } });

export const OPTION_REGISTRY = {
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  RegisterEnabled: bool(true),
  /** Admins and root must have a second factor before any other console call (docs/security.md#second-factor). */
  TwoFactorRequiredForAdmins: bool(false),
  EmailVerificationEnabled: bool(false, pub('email_verification')),
  GitHubOAuthEnabled: bool(false, { ...pub('github_oauth'), ...needs('OPTION_GITHUB_CONFIG', 'GitHubClientId', 'GitHubClientSecret') }),
  GitHubClientId: text('', pub('github_client_id')),
  GitHubClientSecret: secret(),
  LinuxDOOAuthEnabled: bool(false, { ...pub('linuxdo_oauth'), ...needs('OPTION_LINUXDO_CONFIG', 'LinuxDOClientId', 'LinuxDOClientSecret') }),
  LinuxDOClientId: text('', pub('linuxdo_client_id')),
  LinuxDOClientSecret: secret(),
  /** Discord sign-in (OAuth2 authorization code; scopes identify and email). */
  DiscordOAuthEnabled: bool(false, { ...pub('discord_oauth'), ...needs('OPTION_DISCORD_CONFIG', 'DiscordClientId', 'DiscordClientSecret') }),
  DiscordClientId: text('', pub('discord_client_id')),
  DiscordClientSecret: secret(),
  WeChatAuthEnabled: bool(false, { ...pub('wechat_login'), ...needs('OPTION_WECHAT_CONFIG', 'WeChatServerAddress') }),
  WeChatServerAddress: address(),
  WeChatServerToken: secret(),
  WeChatAccountQRCodeImageURL: text('', pub('wechat_qrcode')),
  TelegramOAuthEnabled: bool(false, { ...pub('telegram_oauth'), ...needs('OPTION_TELEGRAM_CONFIG', 'TelegramBotName', 'TelegramBotToken') }),
  TelegramBotToken: secret(),
  TelegramBotName: text('', pub('telegram_bot_name')),
  /**
   * Where the sign-in providers live (ModelGate's own keys; the reference hard-codes them): a GitHub
   * Enterprise server, a LinuxDO mirror, or a testkit fake. Authorize, token and user paths are the
   * providers' documented ones under these bases.
   */
  GitHubOAuthEndpoint: make('address', 'https://github.com', {}),
  GitHubApiEndpoint: make('address', 'https://api.github.com', {}),
  LinuxDOOAuthEndpoint: make('address', 'https://connect.linux.do', {}),
  /** Discord's site: authorize at `/oauth2/authorize`, the API (token, `/users/@me`) under `/api`. */
  DiscordOAuthEndpoint: make('address', 'https://discord.com', {}),
  /** Generic OpenID Connect (newer reference versions): discovery URL, client, scopes, which claim is the user id. */
  OIDCEnabled: bool(false, { ...pub('oidc_enabled'), ...needs('OPTION_OIDC_CONFIG', 'OIDCWellKnown', 'OIDCClientId', 'OIDCClientSecret') }),
  OIDCWellKnown: address(),
  OIDCClientId: text('', pub('oidc_client_id')),
  OIDCClientSecret: secret(),
  OIDCScopes: text('openid profile email'),
  OIDCUserIdClaim: text('sub'),
  TurnstileCheckEnabled: bool(false, { ...pub('turnstile_check'), ...needs('OPTION_TURNSTILE_CONFIG', 'TurnstileSiteKey', 'TurnstileSecretKey') }),
  TurnstileSiteKey: text('', pub('turnstile_site_key')),
  TurnstileSecretKey: secret(),
  EmailDomainRestrictionEnabled: bool(false, needs('OPTION_EMAIL_DOMAIN_CONFIG', 'EmailDomainWhitelist')),
  EmailAliasRestrictionEnabled: bool(false),
  EmailDomainWhitelist: text('gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com'),
  SMTPServer: text(),
  SMTPPort: int(587),
  SMTPAccount: text(),
  SMTPFrom: text(),
  SMTPToken: secret(),
  SMTPSSLEnabled: bool(false),
  ServerAddress: address(pub('server_address')),
  WorkerUrl: address(),
  WorkerValidKey: secret(),
  PayAddress: address(PAYMENT),
  EpayId: text('', PAYMENT),
  EpayKey: make('string', '', { access: 'secret', ...PAYMENT }),
  CustomCallbackAddress: address(PAYMENT),
  Price: float(7.3, { ...pub('price'), ...PAYMENT }),
  MinTopUp: int(1, { ...pub('min_topup'), ...PAYMENT }),
  TopupGroupRatio: json(DEFAULT_GROUP_RATIO, 'ratios', PAYMENT),
  /**
   * Stripe Checkout top-up (modules/topups/stripe-*.ts): the secret API key, the webhook endpoint's
   * signing secret, what one unit of the site's display amount costs in `StripeCurrency` (the
   * group's top-up ratio applies too), the smallest amount and the amounts the wallet offers.
   */
  StripeTopUpEnabled: bool(false, { ...pub('enable_stripe_topup'), ...needs('OPTION_STRIPE_CONFIG', 'ServerAddress', 'StripeApiSecret', 'StripeWebhookSecret') }),
  StripeApiSecret: make('string', '', { access: 'secret', ...PAYMENT }),
  StripeWebhookSecret: make('string', '', { access: 'secret', ...PAYMENT }),
  StripeUnitPrice: float(1, { ...pub('stripe_unit_price'), ...PAYMENT }),
  StripeCurrency: text('usd', { ...pub('stripe_currency'), ...PAYMENT }),
  StripeMinTopUp: int(1, { ...pub('stripe_min_topup'), ...PAYMENT }),
  StripeAmountOptions: json([10, 20, 50, 100], 'any', { ...pub('stripe_amount_options'), ...PAYMENT }),
  /** Where the Stripe API is reached (ModelGate's own key: a proxy, or the testkit fake); empty is Stripe's own. */
  StripeApiBase: address(PAYMENT),
  Notice: text('', pub('/api/notice')),
  // One name everywhere (README, console, tab): the reference's 'New API' read as another product (issue 35).
  SystemName: text('ModelGate', pub('system_name')),
  Logo: text('', pub('logo')),
  HomePageContent: text('', pub('/api/home_page_content')),
  About: text('', pub('/api/about')),
  Footer: text('', pub('footer_html')),
  TopUpLink: link(pub('top_up_link')),
  ChatLink: link(pub('chat_link')),
  ChatLink2: link(pub('chat_link2')),
  // Quotas are divided by it to show money: 0 would divide by zero.
  QuotaPerUnit: float(500000, { ...pub('quota_per_unit'), min: 1 }),
  RetryTimes: int(0, { allowNegative: true }),
  /** The zone calendar windows (day, week, month) of periodic limits and plans are counted in (docs/ledger.md "Windows and plans"). */
  TimeZone: timeZone(),
  /**
   * Channel affinity (docs/providers.md "Channel affinity"): a conversation's requests stay on the
   * channel that served it while it is enabled and in the highest available tier; the binding
   * lives this many seconds, refreshed on use.
   */
  ChannelAffinityEnabled: bool(true),
  ChannelAffinityTtlSeconds: int(3600, { min: 60 }),
  DisplayInCurrencyEnabled: bool(true, pub('display_in_currency')),
  DisplayTokenStatEnabled: bool(true, pub('display_token_stat')),
  DefaultCollapseSidebar: bool(false, pub('default_collapse_sidebar')),
  DrawingEnabled: bool(true, pub('enable_drawing')),
  TaskEnabled: bool(true, pub('enable_task')),
  MjNotifyEnabled: bool(false, pub('mj_notify_enabled')),
  MjAccountFilterEnabled: bool(false),
  MjForwardUrlEnabled: bool(true),
  MjModeClearEnabled: bool(false),
  MjActionCheckSuccessEnabled: bool(true),
  CheckSensitiveEnabled: bool(true),
  CheckSensitiveOnPromptEnabled: bool(true),
  CheckSensitiveOnCompletionEnabled: bool(false),
  StopOnSensitiveEnabled: bool(true),
  SensitiveWords: text('test_sensitive'),
  StreamCacheQueueLength: int(0),
  LogConsumeEnabled: bool(true),
  /** Days of usage logs to keep; 0 keeps them all (jobs/log-retention.job.ts). */
  LogRetentionDays: int(0),
  /** Days of audit log entries to keep; 0 keeps them all (jobs/audit-retention.job.ts). */
  AuditLogRetentionDays: int(180),
  /** Bearer token for `GET /metrics`; empty turns the endpoint off (404). */
  MetricsToken: secret(),
  /** Private ranges outbound fetches (image URLs, webhooks, OAuth) may reach anyway, e.g. an internal image host. */
  OutboundAllowedRanges: ipList(),
  DataExportEnabled: bool(true, pub('enable_data_export')),
  DataExportInterval: int(5, { min: 1 }),
  DataExportDefaultTime: text('hour', pub('data_export_default_time')),
  ChannelDisableThreshold: float(5),
  QuotaRemindThreshold: int(1000),
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  QuotaForNewUser: int(0),
  PreConsumedQuota: int(500),
  QuotaForInviter: int(0),
  QuotaForInvitee: int(0),
  // Unsaved, Chats and UserUsableGroups are answered in the caller's language (default-data.ts).
  Chats: json(DEFAULT_CHATS.zh, 'chats', pub('chats')),
  GroupRatio: json(DEFAULT_GROUP_RATIO, 'ratios'),
  UserUsableGroups: json(DEFAULT_USABLE_GROUPS.zh, 'names'),
  ModelPrice: json(DEFAULT_MODEL_PRICE, 'ratios'),
  ModelRatio: json(DEFAULT_MODEL_RATIO, 'ratios'),
  CompletionRatio: json(DEFAULT_COMPLETION_RATIO, 'ratios'),
  /** A cached prompt token's share of the input price, per model (a model not named: the built-in prefix rules, else 1). */
  CacheRatio: json(DEFAULT_CACHE_RATIO, 'ratios'),
  /** A prompt token written to the provider's cache, as a share of the input price, per model (Claude 1.25). */
  CreateCacheRatio: json(DEFAULT_CREATE_CACHE_RATIO, 'ratios'),
  /** Video generation: USD per second by model and resolution tier (video.ts `VideoPriceTable`). */
  VideoPrice: json(DEFAULT_VIDEO_PRICE, 'videoPrices'),
  /**
   * Bill a model that has neither a price nor a ratio at the fallback ratio (the reference's 2024
   * behaviour) instead of refusing it; off by default so nothing is billed at a price nobody set.
   */
  AllowUnpricedModels: bool(false),
} as const satisfies Record<string, OptionSpec>;

type Registry = typeof OPTION_REGISTRY;

/** Every option key: a typo in a key is a compile error on both sides. */
export type OptionKey = keyof Registry;

/** The keys whose values are of `K` kind (`bool(key)` takes only switches, …). */
export type OptionKeyOf<K extends OptionKind> = { [P in OptionKey]: Registry[P]['kind'] extends K ? P : never }[OptionKey];

export const OPTION_KEYS = Object.keys(OPTION_REGISTRY) as OptionKey[];

export function isOptionKey(key: string): key is OptionKey {
  return Object.hasOwn(OPTION_REGISTRY, key);
}

export function optionSpec(key: OptionKey): OptionSpec {
  return OPTION_REGISTRY[key];
}

/** Secrets never leave the server, not even to the super admin's option list (reference behaviour). */
export function isSecretOption(key: string): boolean {
  return isOptionKey(key) && OPTION_REGISTRY[key].access === 'secret';
}

/** The typed value of an option's stored string: booleans, numbers, parsed JSON (or `fallback` when it does not parse). */
export type OptionValue<K extends OptionKey> = Registry[K]['kind'] extends 'bool'
  ? boolean
  : Registry[K]['kind'] extends 'int' | 'float'
    ? number
    : Registry[K]['kind'] extends 'json'
      ? unknown
      : string;

export function optionValue<K extends OptionKey>(key: K, raw: string | undefined): OptionValue<K> {
  const spec: OptionSpec = OPTION_REGISTRY[key];
  const value = raw ?? spec.default;
  switch (spec.kind) {
    case 'bool':
      return (value === 'true') as OptionValue<K>;
    case 'int':
    case 'float': {
      const n = Number(value);
      return (Number.isFinite(n) ? n : Number(spec.default)) as OptionValue<K>;
    }
    case 'json':
      try {
        return JSON.parse(value) as OptionValue<K>;
      } catch {
        return JSON.parse(spec.default) as OptionValue<K>;
      }
    default:
      return value as OptionValue<K>;
  }
}
