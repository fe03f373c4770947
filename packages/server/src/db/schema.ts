import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';
import type { Def, Id } from './schema-columns.js';
import type { PlansTable, UserPlansTable, WindowChargesTable, WindowCountersTable } from './schema-plans.js';

export type { Def, Id } from './schema-columns.js';

/**
 * Table types. Booleans are stored as 0/1 integers on every dialect so one code path serves SQLite,
 * PostgreSQL and MySQL; timestamps are Unix seconds unless a column says ms.
 */
type Flag = Def<number>;

export interface UsersTable {
  id: Id;
  username: string;
  /**
   * Migration 0014: the username as compared (`usernameKey`: NFKC, case folded), unique. Written by
   * the users repository and the import with every username; NULL only for a name that already
   * collided ignoring case when the migration ran (see there).
   */
  username_key: Def<string | null>;
  password: string;
  display_name: Def<string>;
  role: Def<number>;
  status: Def<number>;
  email: Def<string>;
  github_id: Def<string>;
  wechat_id: Def<string>;
  telegram_id: Def<string>;
  linux_do_id: Def<string>;
  /** Migration 0009. */
  oidc_id: Def<string>;
  /** Migration 0018: the Discord user id. */
  discord_id: Def<string>;
  access_token: Def<string | null>;
  quota: Def<number>;
  used_quota: Def<number>;
  request_count: Def<number>;
  group: Def<string>;
  aff_code: Def<string | null>;
  aff_count: Def<number>;
  aff_quota: Def<number>;
  aff_history: Def<number>;
  inviter_id: Def<number>;
  /** Relay requests in flight at once (0: no limit). */
  concurrency_limit: Def<number>;
  /** Migration 0021: caps per window (shared/periods.ts, JSON; '' = none). */
  period_limits: Def<string>;
  created_at: Def<number>;
  deleted_at: Def<number | null>;
}

/** Server-side sessions (migration 0005); `id` is sha256 of the cookie's session id, in hex. */
export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  ip: Def<string>;
  user_agent: Def<string>;
}

export interface TokensTable {
  id: Id;
  user_id: number;
  key: string;
  status: Def<number>;
  name: Def<string>;
  created_time: Def<number>;
  accessed_time: Def<number>;
  expired_time: Def<number>;
  remain_quota: Def<number>;
  unlimited_quota: Flag;
  model_limits_enabled: Flag;
  model_limits: Def<string>;
  allow_ips: Def<string>;
  /** Requests per minute (0: no limit). */
  rpm_limit: Def<number>;
  /** Tokens (prompt + completion) per minute (0: no limit). */
  tpm_limit: Def<number>;
  /** Migration 0021: caps per window (shared/periods.ts, JSON; '' = none). */
  period_limits: Def<string>;
  used_quota: Def<number>;
  group: Def<string>;
  deleted_at: Def<number | null>;
}

export interface ChannelsTable {
  id: Id;
  type: Def<number>;
  key: string;
  openai_organization: Def<string | null>;
  test_model: Def<string | null>;
  status: Def<number>;
  name: Def<string>;
  weight: Def<number>;
  created_time: Def<number>;
  test_time: Def<number>;
  response_time: Def<number>;
  base_url: Def<string | null>;
  other: Def<string>;
  balance: Def<number>;
  balance_updated_time: Def<number>;
  models: Def<string>;
  group: Def<string>;
  used_quota: Def<number>;
  model_mapping: Def<string | null>;
  status_code_mapping: Def<string | null>;
  priority: Def<number>;
  auto_ban: Def<number>;
  other_info: Def<string>;
  tag: Def<string | null>;
  setting: Def<string | null>;
  max_input_tokens: Def<number>;
  /**
   * 1 when root (or the operator's import) placed where the channel's requests go, or nobody chose
   * an address (the type's own host); 0 when a non-root admin chose the base URL or proxy, or the
   * row predates 0013: the relay then checks each new connection's address (net/upstream-guard.ts).
   * The database default is 1 for inserts that do not name it; the service always does.
   */
  target_trusted: Def<number>;
}

export interface AbilitiesTable {
  group: string;
  model: string;
  channel_id: number;
  enabled: Flag;
  priority: Def<number>;
  weight: Def<number>;
  tag: Def<string | null>;
}

export interface OptionsTable {
  key: string;
  value: string;
}

export interface RedemptionsTable {
  id: Id;
  user_id: Def<number>;
  key: string;
  status: Def<number>;
  name: Def<string>;
  quota: Def<number>;
  created_time: Def<number>;
  redeemed_time: Def<number>;
  used_user_id: Def<number>;
  deleted_at: Def<number | null>;
}

export interface LogsTable {
  id: Id;
  user_id: Def<number>;
  created_at: Def<number>;
  type: Def<number>;
  content: Def<string>;
  username: Def<string>;
  token_name: Def<string>;
  model_name: Def<string>;
  quota: Def<number>;
  prompt_tokens: Def<number>;
  completion_tokens: Def<number>;
  use_time: Def<number>;
  is_stream: Flag;
  channel_id: Def<number>;
  token_id: Def<number>;
  group: Def<string>;
  other: Def<string>;
  request_id: Def<string | null>;
}

export interface MidjourneysTable {
  id: Id;
  code: Def<number>;
  user_id: Def<number>;
  action: Def<string>;
  mj_id: Def<string>;
  prompt: Def<string>;
  prompt_en: Def<string>;
  description: Def<string>;
  state: Def<string>;
  submit_time: Def<number>;
  start_time: Def<number>;
  finish_time: Def<number>;
  image_url: Def<string>;
  status: Def<string>;
  progress: Def<string>;
  fail_reason: Def<string>;
  channel_id: Def<number>;
  quota: Def<number>;
  buttons: Def<string>;
  properties: Def<string>;
  /** Migration 0023: the ledger request id of the submit ('' on older rows). */
  request_id: Def<string>;
}

export interface TasksTable {
  id: Id;
  created_at: Def<number>;
  updated_at: Def<number>;
  task_id: Def<string>;
  platform: Def<string>;
  user_id: Def<number>;
  channel_id: Def<number>;
  quota: Def<number>;
  action: Def<string>;
  status: Def<string>;
  fail_reason: Def<string>;
  submit_time: Def<number>;
  start_time: Def<number>;
  finish_time: Def<number>;
  progress: Def<string>;
  properties: Def<string>;
  data: Def<string>;
  /** Migration 0023: the ledger request id of the submit ('' on older rows). */
  request_id: Def<string>;
}

export interface TopUpsTable {
  id: Id;
  user_id: Def<number>;
  amount: Def<number>;
  money: Def<number>;
  trade_no: string;
  create_time: Def<number>;
  status: Def<string>;
  /** What a confirmed payment credits (migration 0007; 0 on orders of earlier versions). */
  quota: Def<number>;
  payment_method: Def<string>;
  complete_time: Def<number>;
  /** Migration 0018: the payment service's id for the order (Stripe: the Checkout Session id). */
  gateway_ref: Def<string>;
  /** Migration 0018: a refund or dispute the payment service reported. */
  note: Def<string>;
  /** Migration 0022: the plan a plan order pays for (NULL: a plain top-up). */
  plan_id: Def<number | null>;
  /** Migration 0022: the subscription the paid plan order bought. */
  subscription_id: Def<number | null>;
  /** Migration 0022: why a paid plan order bought no plan (a server message code), '' otherwise. */
  plan_error: Def<string>;
}

export interface QuotaDataTable {
  id: Id;
  user_id: Def<number>;
  username: Def<string>;
  model_name: Def<string>;
  created_at: Def<number>;
  token_used: Def<number>;
  count: Def<number>;
  quota: Def<number>;
}

/** quota_data summed over users: one row per model × hour (migration 0011), for the dashboard's all-users view. */
export interface QuotaDataModelsTable {
  id: Id;
  model_name: Def<string>;
  created_at: Def<number>;
  token_used: Def<number>;
  count: Def<number>;
  quota: Def<number>;
}

/** Open reservations of the relay ledger (migration 0002); a row lives from reserve to settle. */
export interface ReservationsTable {
  request_id: string;
  user_id: number;
  token_id: number;
  user_amount: number;
  token_amount: number;
  created_at: number;
  node_id: Def<string>;
  lease_until: Def<number>;
  /** Migration 0021: the subscription paying (0: the wallet) and how many windows the request holds. */
  paid_by: Def<number>;
  windows: Def<number>;
}

/** A request's terminal ledger outcome (migration 0004): state 2 settled, 3 released. */
export interface LedgerRequestsTable {
  request_id: string;
  state: number;
  user_id: number;
  token_id: number;
  charge: Def<number>;
  token_taken: Def<number>;
  shortfall: Def<number>;
  created_at: number;
  /** Migration 0021: the subscription that paid (0: the wallet). */
  paid_by: Def<number>;
}

/** Every quota movement that is not a relayed request (migration 0004). */
export interface LedgerEntriesTable {
  id: Id;
  user_id: number;
  token_id: Def<number>;
  kind: string;
  quota_delta: Def<number>;
  used_delta: Def<number>;
  aff_delta: Def<number>;
  token_remain_delta: Def<number>;
  token_used_delta: Def<number>;
  actor_id: Def<number>;
  ref: Def<string | null>;
  created_at: number;
}

/** Short-lived values another node must see (codes, OAuth states) when Redis is not configured. */
export interface SharedStateTable {
  /** sha256 of the caller's key (base64url): fixed length, and case-exact under any collation. */
  key: string;
  value: string;
  /** Unix ms. */
  expires_at: number;
}

/** Job locks when Redis is not configured: one row per job, held by `owner` until `expires_at` (ms). */
export interface JobLocksTable {
  name: string;
  owner: string;
  expires_at: number;
}

/** The audit log (migration 0010): admin and root actions; `details` is JSON, credentials masked. */
export interface AuditLogsTable {
  id: Id;
  created_at: number;
  actor_id: number;
  actor_name: string;
  actor_role: number;
  ip: string;
  user_agent: string;
  action: string;
  target_type: string;
  target_id: string;
  /** 1 success, 0 failure. */
  success: number;
  message: string;
  details: string;
}

/** Migration 0015: log and audit rows waiting in the main database for the log database (LOG_SQL_DSN). */
export interface LogOutboxTable {
  id: Id;
  /** `log` (a usage-log row) or `audit` (an audit-log row). */
  kind: string;
  created_at: number;
  node_id: string;
  /** The row's columns, JSON. */
  row: string;
}

/** Migration 0015, in the log database: outbox ids already stored there. */
export interface LogOutboxShippedTable {
  outbox_id: number;
  shipped_at: number;
}

/** Migration 0024 (MySQL only): hourly consume-quota totals kept by triggers on `logs` (db/log-quota-buckets.ts). */
export interface LogQuotaBucketsTable {
  bucket: number;
  model_name: string;
  shard: number;
  quota: number;
}

/** Migration 0019: TOTP two-factor, one row per user who started enrolment. */
export interface TwoFactorTable {
  user_id: number;
  /** Sealed (crypto/secret-box.ts, purpose `two_factor.secret`). */
  secret: string;
  /** 0 while the enrolment awaits its confirming code. */
  enabled: Flag;
  /** The last TOTP time step accepted: a code of that step or an earlier one is refused. */
  last_step: Def<number>;
  created_at: Def<number>;
  enabled_at: Def<number>;
}

/** Migration 0019: a backup code's sha256 (hex); `used_at` 0 until it is spent. */
export interface TwoFactorBackupCodesTable {
  id: Id;
  user_id: number;
  code_hash: string;
  used_at: Def<number>;
}

/** Migration 0020: a passkey (WebAuthn credential), one row each; `credential_hash` is unique. */
export interface PasskeysTable {
  id: Id;
  user_id: number;
  /** sha256 (hex) of `credential_id`: the lookup key. */
  credential_hash: string;
  /** base64url, as the browser names the credential. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The WebAuthn user handle (base64url) the authenticator stores with the credential. */
  user_handle: Def<string>;
  /** The last signature counter accepted (0 for authenticators that keep none). */
  counter: Def<number>;
  /** Comma-separated transports the browser reported (`internal,hybrid`). */
  transports: Def<string>;
  name: Def<string>;
  backed_up: Flag;
  created_at: Def<number>;
  last_used_at: Def<number>;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  abilities: AbilitiesTable;
  options: OptionsTable;
  redemptions: RedemptionsTable;
  logs: LogsTable;
  midjourneys: MidjourneysTable;
  tasks: TasksTable;
  top_ups: TopUpsTable;
  quota_data: QuotaDataTable;
  quota_data_models: QuotaDataModelsTable;
  reservations: ReservationsTable;
  ledger_requests: LedgerRequestsTable;
  ledger_entries: LedgerEntriesTable;
  shared_state: SharedStateTable;
  job_locks: JobLocksTable;
  audit_logs: AuditLogsTable;
  log_outbox: LogOutboxTable;
  log_outbox_shipped: LogOutboxShippedTable;
  log_quota_buckets: LogQuotaBucketsTable;
  two_factor: TwoFactorTable;
  two_factor_backup_codes: TwoFactorBackupCodesTable;
  passkeys: PasskeysTable;
  plans: PlansTable;
  user_plans: UserPlansTable;
  window_counters: WindowCountersTable;
  window_charges: WindowChargesTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type TokenRow = Selectable<TokensTable>;
export type NewToken = Insertable<TokensTable>;
export type ChannelRow = Selectable<ChannelsTable>;
export type { PlanRow, UserPlanRow } from './schema-plans.js';
export type LogRow = Selectable<LogsTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
export type { ColumnType };
