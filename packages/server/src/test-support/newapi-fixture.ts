/**
 * A new-api v0.4.5 database to import, on SQLite, PostgreSQL or MySQL (newapi-schema.ts), holding
 * the cases an import must get right: a Go bcrypt hash of a known password, a soft-deleted user,
 * a negative balance, limited, unlimited, expired and orphaned tokens, channels of several types
 * (one ModelGate does not know) with their abilities and orphaned abilities, options (one unknown
 * key, one invalid value), used and unused redemption codes, top-ups, logs of every type and
 * quota_data rows that share a key.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SqlKind } from '../config/config.js';
import { NEWAPI_TABLES, quoteIdent, tableDdl } from './newapi-schema.js';
import { createTestDatabase } from './test-db.js';

/** Go's x/crypto/bcrypt test vector (TestBcryptingIsCorrect): "allmine", as new-api stores it. */
export const GO_BCRYPT = { password: 'allmine', hash: '$2a$10$XajjQvNhvvRt5GSeFk1xFeyqRrsxkhBkUiQeg0dt.wU1qD4aFDcga' };
/** A published OpenBSD-style `$2a$` vector: "abc". */
const ABC_HASH = '$2a$10$WvvTPHKwdBJ3uk0Z37EMR.hLA2W6N9AEBhEgrAOljy2Ae5MtaSIUi';

export const ALICE_KEY = 'aLiCe0LimitedKey1234567890abcdefghijklmnopqrstuv';
export const ALICE_UNLIMITED_KEY = 'aLiCe1UnlimitedKey234567890abcdefghijklmnopqrstu';
/** Price of the model the fixture's options price per call (ModelPrice), in dollars. */
export const IMPORTED_MODEL = 'imported-model';
export const IMPORTED_MODEL_PRICE = 0.02;
export const VIP_RATIO = 1.5;

type Value = string | number | boolean | null | { time: string };
type Rows = Record<string, Array<Record<string, Value>>>;

/** A soft-delete time as Go wrote it (2024-11-20 08:30:00.123 +08:00). */
const DELETED = { time: '2024-11-20 08:30:00.123+08:00' };
const T0 = 1_730_000_000;

export const FIXTURE_ROWS: Rows = {
  users: [
    { id: 1, username: 'root', password: ABC_HASH, display_name: 'Root User', role: 100, status: 1, quota: 99_000_000, used_quota: 1_000_000, request_count: 40, group: 'default', aff_code: '', aff_count: 1, aff_quota: 0, aff_history: 0, inviter_id: 0, deleted_at: null },
    { id: 2, username: 'alice', password: GO_BCRYPT.hash, display_name: 'Alice', role: 1, status: 1, email: 'alice@example.com', access_token: 'b1c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1', quota: 1_000_000, used_quota: 250_000, request_count: 12, group: 'vip', aff_code: 'a1B2', aff_count: 1, aff_quota: 5_000, aff_history: 5_000, inviter_id: 0, deleted_at: null },
    { id: 3, username: 'bob', password: ABC_HASH, display_name: 'Bob', role: 1, status: 2, quota: -1_200, used_quota: 3_000, request_count: 3, group: 'default', aff_code: 'b0B3', inviter_id: 2, deleted_at: null },
    { id: 4, username: 'carol', password: ABC_HASH, display_name: 'Carol', role: 1, status: 1, quota: 7_777, used_quota: 100, group: 'default', aff_code: 'cA44', inviter_id: 0, deleted_at: DELETED },
    { id: 5, username: 'github_5', password: '', display_name: 'GitHub User', role: 10, status: 1, github_id: 'dave-gh', linux_do_id: '', quota: 0, used_quota: 0, group: 'default', aff_code: 'dV55', inviter_id: 0, deleted_at: null },
    { id: 6, username: '', password: ABC_HASH, display_name: 'nameless', role: 1, status: 1, quota: 10, used_quota: 0, group: 'default', aff_code: 'x666', inviter_id: 0, deleted_at: null },
  ],
  tokens: [
    { id: 1, user_id: 2, key: ALICE_KEY, status: 1, name: 'limited', created_time: T0, accessed_time: T0 + 60, expired_time: -1, remain_quota: 500_000, unlimited_quota: false, model_limits_enabled: false, model_limits: '', allow_ips: '', used_quota: 50_000, group: '', deleted_at: null },
    { id: 2, user_id: 2, key: ALICE_UNLIMITED_KEY, status: 1, name: 'unlimited', created_time: T0, accessed_time: T0, expired_time: -1, remain_quota: -20_000, unlimited_quota: true, model_limits_enabled: false, model_limits: '', allow_ips: '', used_quota: 200_000, group: '', deleted_at: null },
    { id: 3, user_id: 3, key: 'b0bExpiredKey0123456789abcdefghijklmnopqrstuvwxy', status: 3, name: 'expired', created_time: T0, accessed_time: T0, expired_time: 1_700_000_000, remain_quota: 1_000, unlimited_quota: false, model_limits_enabled: false, model_limits: '', allow_ips: '', used_quota: 3_000, group: '', deleted_at: null },
    { id: 4, user_id: 4, key: 'cArolDeletedKey123456789abcdefghijklmnopqrstuvwx', status: 1, name: 'gone', created_time: T0, accessed_time: T0, expired_time: -1, remain_quota: 700, unlimited_quota: false, model_limits_enabled: false, model_limits: '', allow_ips: '', used_quota: 100, group: '', deleted_at: DELETED },
    { id: 5, user_id: 6, key: 'nAmelessUserKey123456789abcdefghijklmnopqrstuvwx', status: 1, name: 'of a skipped user', created_time: T0, accessed_time: T0, expired_time: -1, remain_quota: 10, unlimited_quota: false, model_limits_enabled: false, model_limits: '', allow_ips: '', used_quota: 0, group: '', deleted_at: null },
    { id: 6, user_id: 99, key: 'oRphanTokenKey1234567890abcdefghijklmnopqrstuvwx', status: 1, name: 'orphan', created_time: T0, accessed_time: T0, expired_time: -1, remain_quota: 10, unlimited_quota: false, model_limits_enabled: false, model_limits: '', allow_ips: '', used_quota: 0, group: '', deleted_at: null },
    { id: 7, user_id: 1, key: 'rOotLimitedModels4567890abcdefghijklmnopqrstuvwx', status: 1, name: 'root models', created_time: T0, accessed_time: T0, expired_time: -1, remain_quota: 0, unlimited_quota: true, model_limits_enabled: true, model_limits: `gpt-4o-mini,${IMPORTED_MODEL}`, allow_ips: '127.0.0.1', used_quota: 0, group: 'vip', deleted_at: null },
  ],
  channels: [
    { id: 1, type: 1, key: 'sk-upstream-openai', status: 1, name: 'openai-main', weight: 5, created_time: T0, test_time: T0 + 5, response_time: 420, base_url: 'https://api.openai.com', other: '', balance: 12.5, balance_updated_time: T0, models: `gpt-4o-mini,${IMPORTED_MODEL}`, group: 'default,vip', used_quota: 1_250_000, model_mapping: '{"gpt-3.5-turbo":"gpt-4o-mini"}', status_code_mapping: '', priority: 10, auto_ban: 1, other_info: '', tag: 'main', setting: null },
    { id: 2, type: 3, key: 'azure-key', status: 2, name: 'azure-eu', weight: 0, created_time: T0, models: 'gpt-4o', group: 'default', base_url: 'https://eu.openai.azure.com', other: '2024-02-01', priority: 0, auto_ban: 1, other_info: '', tag: null },
    { id: 3, type: 14, key: 'sk-ant-key', status: 3, name: 'claude', weight: 0, created_time: T0, models: 'claude-3-5-sonnet-20240620', group: 'default', base_url: '', other: '', priority: 0, auto_ban: 1, other_info: '{"status_reason":"401 invalid key","status_time":1730000500}', tag: null },
    { id: 4, type: 44, key: 'moka-key', status: 1, name: 'moka', weight: 0, created_time: T0, models: 'moka-embed', group: 'default', base_url: '', other: '', priority: 0, auto_ban: 1, other_info: '', tag: null },
    { id: 5, type: 43, key: 'sk-deepseek', status: 1, name: 'deepseek', weight: 1, created_time: T0, models: 'deepseek-chat', group: 'default', base_url: '', other: '', priority: 0, auto_ban: 0, other_info: '', tag: null },
  ],
  abilities: [
    ...['gpt-4o-mini', IMPORTED_MODEL].flatMap((model) => ['default', 'vip'].map((group) => ({ group, model, channel_id: 1, enabled: true, priority: 10, weight: 5, tag: 'main' }))),
    { group: 'default', model: 'gpt-4o', channel_id: 2, enabled: false, priority: 0, weight: 0, tag: null },
    { group: 'default', model: 'claude-3-5-sonnet-20240620', channel_id: 3, enabled: false, priority: 0, weight: 0, tag: null },
    { group: 'default', model: 'moka-embed', channel_id: 4, enabled: true, priority: 0, weight: 0, tag: null },
    { group: 'default', model: 'deepseek-chat', channel_id: 5, enabled: true, priority: 0, weight: 1, tag: null },
    { group: 'default', model: 'gpt-4', channel_id: 9, enabled: false, priority: 0, weight: 0, tag: null },
  ],
  options: [
    { key: 'QuotaPerUnit', value: '500000' },
    { key: 'ModelPrice', value: JSON.stringify({ [IMPORTED_MODEL]: IMPORTED_MODEL_PRICE, 'mj_imagine': 0.1 }) },
    { key: 'GroupRatio', value: JSON.stringify({ default: 1, vip: VIP_RATIO, svip: 1 }) },
    { key: 'SystemName', value: 'Old Gateway' },
    { key: 'RegisterEnabled', value: 'false' },
    { key: 'SMTPToken', value: 'smtp-secret' },
    { key: 'RetryTimes', value: 'three' },
    { key: 'SomeFutureSetting', value: 'x' },
  ],
  redemptions: [
    { id: 1, user_id: 1, key: '0f1e2d3c4b5a69788796a5b4c3d2e1f0', status: 3, name: 'welcome', quota: 100_000, created_time: T0, redeemed_time: T0 + 100, used_user_id: 2, deleted_at: null },
    { id: 2, user_id: 1, key: '1a2b3c4d5e6f708192a3b4c5d6e7f809', status: 1, name: 'welcome', quota: 100_000, created_time: T0, redeemed_time: 0, used_user_id: 0, deleted_at: null },
    { id: 3, user_id: 1, key: '9f8e7d6c5b4a39281706f5e4d3c2b1a0', status: 2, name: 'old', quota: 5_000, created_time: T0, redeemed_time: 0, used_user_id: 0, deleted_at: DELETED },
  ],
  top_ups: [
    { id: 1, user_id: 2, amount: 10, money: 73.0, trade_no: 'USR2NOa1b2c31730000000', create_time: T0, status: 'success' },
    { id: 2, user_id: 3, amount: 5, money: 36.5, trade_no: 'USR3NOz9y8x71730000100', create_time: T0 + 100, status: 'pending' },
  ],
  logs: [
    { id: 1, user_id: 2, created_at: T0, type: 1, content: '通过兑换码充值 $0.200000', username: 'alice', quota: 0, is_stream: false, channel_id: 0, token_id: 0, group: '', other: '' },
    { id: 2, user_id: 2, created_at: T0 + 60, type: 2, content: '模型倍率 0.08，补全倍率 4.00，分组倍率 1.50', username: 'alice', token_name: 'limited', model_name: 'gpt-4o-mini', quota: 50_000, prompt_tokens: 120, completion_tokens: 80, use_time: 2, is_stream: true, channel_id: 1, token_id: 1, group: 'vip', other: '{"model_ratio":0.075,"group_ratio":1.5,"completion_ratio":4,"model_price":-1,"frt":350}' },
    { id: 3, user_id: 1, created_at: T0 + 120, type: 3, content: '管理员将用户额度从 $1.00 修改为 $2.00', username: 'root', quota: 0, is_stream: false, channel_id: 0, token_id: 0, group: '', other: '' },
    { id: 4, user_id: 2, created_at: T0 + 180, type: 4, content: '新用户注册赠送 $0.00', username: 'alice', quota: 0, is_stream: false, channel_id: 0, token_id: 0, group: '', other: '' },
    { id: 5, user_id: 3, created_at: T0 + 240, type: 2, content: '模型价格 0.02，分组倍率 1.00', username: 'bob', token_name: 'expired', model_name: IMPORTED_MODEL, quota: 10_000, prompt_tokens: 3, completion_tokens: 5, use_time: 1, is_stream: false, channel_id: 1, token_id: 3, group: 'default', other: '{"model_price":0.02,"group_ratio":1}' },
  ],
  quota_data: [
    { id: 1, user_id: 2, username: 'alice', model_name: 'gpt-4o-mini', created_at: 1_729_998_000, token_used: 200, count: 1, quota: 50_000 },
    { id: 2, user_id: 3, username: 'bob', model_name: IMPORTED_MODEL, created_at: 1_729_998_000, token_used: 8, count: 1, quota: 10_000 },
    { id: 3, user_id: 2, username: 'alice-old', model_name: 'gpt-4o-mini', created_at: 1_729_998_000, token_used: 50, count: 2, quota: 1_000 },
  ],
  midjourneys: [{ id: 1, code: 1, user_id: 2, action: 'IMAGINE', mj_id: '1730000000123', prompt: 'a cat', submit_time: T0 * 1000, status: 'SUCCESS', progress: '100%', channel_id: 1, quota: 50_000 }],
};

/** A Go time as each database's driver stored it (SQLite keeps Go's text, the others a timestamp). */
function timeValue(kind: SqlKind, goText: string): string {
  if (kind === 'sqlite') return goText;
  const d = new Date(goText.replace(' ', 'T'));
  return kind === 'postgres' ? d.toISOString() : d.toISOString().replace('T', ' ').replace('Z', '');
}

function bind(kind: SqlKind, v: Value): string | number | boolean | null {
  if (v !== null && typeof v === 'object') return timeValue(kind, v.time);
  if (typeof v === 'boolean' && kind !== 'postgres') return v ? 1 : 0;
  return v;
}

export interface NewApiFixture {
  kind: SqlKind;
  /** The value for `--from`: a file path, a postgres:// URL, or MySQL's Go DSN form. */
  from: string;
  /** Runs SQL on the fixture database (to break or extend it in a test). */
  exec(statement: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A new-api database with FIXTURE_ROWS; `without` leaves tables out (a schema the importer must
 * refuse, or a main database whose logs are in LOG_SQL_DSN), `only` keeps just those (new-api's log
 * database holds `logs` alone).
 */
export async function createNewApiFixture(kind: SqlKind, opts: { without?: string[]; only?: string[] } = {}): Promise<NewApiFixture> {
  let exec: NewApiFixture['exec'];
  let from: string;
  let closeConn: () => Promise<void>;
  let drop: () => Promise<void>;
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newapi-fixture-'));
    from = path.join(dir, 'one-api.db');
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(from);
    exec = async (s, p = []) => void db.prepare(s).run(...(p as unknown[]));
    closeConn = async () => void db.close();
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  } else {
    const database = await createTestDatabase(kind);
    const url = new URL(database.env.SQL_DSN!);
    drop = database.drop;
    if (kind === 'postgres') {
      from = url.toString();
      const pg = await import('pg');
      const client = new pg.default.Client({ connectionString: from });
      await client.connect();
      exec = async (s, p = []) => void (await client.query(s, p));
      closeConn = () => client.end();
    } else {
      const auth = url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : decodeURIComponent(url.username);
      from = `${auth}@tcp(${url.host})${url.pathname}?charset=utf8mb4&parseTime=True&loc=Local`;
      const mysql = await import('mysql2/promise');
      const conn = await mysql.createConnection(url.toString());
      exec = async (s, p = []) => void (await conn.query(s, p));
      closeConn = () => conn.end();
    }
  }
  const skip = new Set([...(opts.without ?? []), ...NEWAPI_TABLES.filter((t) => opts.only && !opts.only.includes(t.name)).map((t) => t.name)]);
  for (const table of NEWAPI_TABLES) {
    if (skip.has(table.name)) continue;
    for (const statement of tableDdl(kind, table)) await exec(statement);
    for (const row of FIXTURE_ROWS[table.name] ?? []) {
      const cols = Object.keys(row);
      const marks = cols.map((_, i) => (kind === 'postgres' ? `$${i + 1}` : '?'));
      await exec(
        `INSERT INTO ${quoteIdent(kind, table.name)} (${cols.map((c) => quoteIdent(kind, c)).join(',')}) VALUES (${marks.join(',')})`,
        cols.map((c) => bind(kind, row[c]!)),
      );
    }
  }
  // GORM leaves PostgreSQL's sequences where the inserts put them; rows above were given their ids.
  if (kind === 'postgres') {
    for (const t of NEWAPI_TABLES) if (!skip.has(t.name) && t.columns.some((c) => c.type === 'pk')) await exec(`SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), (SELECT COALESCE(MAX(id), 1) FROM "${t.name}"))`);
  }
  return {
    kind,
    from,
    exec,
    async close() {
      await closeConn();
      await drop();
    },
  };
}
