import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from '../../relay/billing/default-ratios.js';

/** How an option's string value is validated and typed. */
export type OptionKind = 'bool' | 'int' | 'float' | 'json' | 'string' | 'address';

export interface OptionSpec {
  kind: OptionKind;
  default: string;
}

const bool = (v: boolean): OptionSpec => ({ kind: 'bool', default: String(v) });
const int = (v: number): OptionSpec => ({ kind: 'int', default: String(v) });
const float = (v: number): OptionSpec => ({ kind: 'float', default: String(v) });
const text = (v = ''): OptionSpec => ({ kind: 'string', default: v });
const json = (v: unknown): OptionSpec => ({ kind: 'json', default: JSON.stringify(v, null, 2) });
const address = (): OptionSpec => ({ kind: 'address', default: '' });

const DEFAULT_GROUP_RATIO = { default: 1, vip: 1, svip: 1 };

/** Chat clients offered from the token list; `{key}` and `{address}` are filled by the console. */
const DEFAULT_CHATS = [
  { 'ChatGPT Next Web 官方示例': 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}' },
  { 'Lobe Chat 官方示例': 'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"{key}","baseURL":"{address}/v1"}}}' },
  { 'AI as Workspace': 'https://aiaw.app/set-provider?provider={"type":"openai","settings":{"apiKey":"{key}","baseURL":"{address}/v1","compatibility":"strict"}}' },
  { AMA问天: 'ama://set-api-key?server={address}&key={key}' },
  { OpenCat: 'opencat://team/join?domain={address}&token={key}' },
];

/** Every option key of spec §3 with the reference's defaults (server-behaviour.md §8.2). */
export const OPTION_SPECS: Record<string, OptionSpec> = {
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  RegisterEnabled: bool(true),
  EmailVerificationEnabled: bool(false),
  GitHubOAuthEnabled: bool(false),
  GitHubClientId: text(),
  GitHubClientSecret: text(),
  LinuxDOOAuthEnabled: bool(false),
  LinuxDOClientId: text(),
  LinuxDOClientSecret: text(),
  WeChatAuthEnabled: bool(false),
  WeChatServerAddress: address(),
  WeChatServerToken: text(),
  WeChatAccountQRCodeImageURL: text(),
  TelegramOAuthEnabled: bool(false),
  TelegramBotToken: text(),
  TelegramBotName: text(),
  TurnstileCheckEnabled: bool(false),
  TurnstileSiteKey: text(),
  TurnstileSecretKey: text(),
  EmailDomainRestrictionEnabled: bool(false),
  EmailAliasRestrictionEnabled: bool(false),
  EmailDomainWhitelist: text('gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com'),
  SMTPServer: text(),
  SMTPPort: int(587),
  SMTPAccount: text(),
  SMTPFrom: text(),
  SMTPToken: text(),
  SMTPSSLEnabled: bool(false),
  ServerAddress: address(),
  WorkerUrl: address(),
  WorkerValidKey: text(),
  PayAddress: address(),
  EpayId: text(),
  EpayKey: text(),
  CustomCallbackAddress: address(),
  Price: float(7.3),
  MinTopUp: int(1),
  TopupGroupRatio: json(DEFAULT_GROUP_RATIO),
  Notice: text(),
  SystemName: text('New API'),
  Logo: text(),
  HomePageContent: text(),
  About: text(),
  Footer: text(),
  TopUpLink: text(),
  ChatLink: text(),
  ChatLink2: text(),
  QuotaPerUnit: float(500000),
  RetryTimes: int(0),
  DisplayInCurrencyEnabled: bool(true),
  DisplayTokenStatEnabled: bool(true),
  DefaultCollapseSidebar: bool(false),
  DrawingEnabled: bool(true),
  TaskEnabled: bool(true),
  MjNotifyEnabled: bool(false),
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
  DataExportEnabled: bool(true),
  DataExportInterval: int(5),
  DataExportDefaultTime: text('hour'),
  ChannelDisableThreshold: float(5),
  QuotaRemindThreshold: int(1000),
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  QuotaForNewUser: int(0),
  PreConsumedQuota: int(500),
  QuotaForInviter: int(0),
  QuotaForInvitee: int(0),
  Chats: json(DEFAULT_CHATS),
  GroupRatio: json(DEFAULT_GROUP_RATIO),
  UserUsableGroups: json({ default: '默认分组', vip: 'vip分组' }),
  ModelPrice: json(DEFAULT_MODEL_PRICE),
  ModelRatio: json(DEFAULT_MODEL_RATIO),
  CompletionRatio: json(DEFAULT_COMPLETION_RATIO),
};

/** Secrets never leave the server, not even to the super admin's option list (reference behaviour). */
export function isSecretOption(key: string): boolean {
  return /(Token|Secret|Key)$/.test(key) && key !== 'TurnstileSiteKey';
}
