/**
 * new-api v0.4.5's tables as GORM's AutoMigrate creates them on each database (model/*.go; the
 * reference's server-behaviour.md §14), for import fixtures. Column types follow GORM's dialectors:
 * Go `int` is BIGINT on MySQL and PostgreSQL (INTEGER on SQLite) unless the tag says `type:int`;
 * `string` is TEXT / LONGTEXT, or VARCHAR(191) on MySQL when indexed, unique or defaulted; `bool` is
 * NUMERIC on SQLite, BOOLEAN elsewhere; `float64` is REAL / DOUBLE / DECIMAL; `gorm.DeletedAt` is
 * DATETIME / DATETIME(3) / TIMESTAMPTZ.
 */
import type { SqlKind } from '../config/config.js';

/** A Go field's column: its Go type, or `sql:<type>` for an explicit `gorm:"type:…"`. */
type BaseType = 'pk' | 'int' | 'int64' | 'uint' | 'string' | 'keyString' | 'bool' | 'float' | 'deletedAt';
type GoType = BaseType | `sql:${string}`;

interface Column {
  name: string;
  type: GoType;
  /** `NOT NULL`, `DEFAULT …` as GORM writes them. */
  extra?: string;
}

interface Table {
  name: string;
  columns: Column[];
  primaryKey?: string[];
  unique?: string[];
  indexes?: string[];
}

const c = (name: string, type: GoType, extra?: string): Column => ({ name, type, extra });

export const NEWAPI_TABLES: Table[] = [
  {
    name: 'users',
    columns: [
      c('id', 'pk'), c('username', 'keyString'), c('password', 'string', 'NOT NULL'), c('display_name', 'keyString'),
      c('role', 'sql:int', 'DEFAULT 1'), c('status', 'sql:int', 'DEFAULT 1'), c('email', 'keyString'), c('github_id', 'keyString'),
      c('wechat_id', 'keyString'), c('telegram_id', 'keyString'), c('access_token', 'sql:char(32)'), c('quota', 'sql:int', 'DEFAULT 0'),
      c('used_quota', 'sql:int', 'DEFAULT 0'), c('request_count', 'sql:int', 'DEFAULT 0'), c('group', 'sql:varchar(64)', "DEFAULT 'default'"),
      c('aff_code', 'sql:varchar(32)'), c('aff_count', 'sql:int', 'DEFAULT 0'), c('aff_quota', 'sql:int', 'DEFAULT 0'),
      c('aff_history', 'sql:int', 'DEFAULT 0'), c('inviter_id', 'sql:int'), c('deleted_at', 'deletedAt'), c('linux_do_id', 'keyString'),
    ],
    unique: ['username', 'access_token', 'aff_code'],
    indexes: ['display_name', 'email', 'github_id', 'wechat_id', 'telegram_id', 'inviter_id', 'deleted_at', 'linux_do_id'],
  },
  {
    name: 'tokens',
    columns: [
      c('id', 'pk'), c('user_id', 'int'), c('key', 'sql:char(48)'), c('status', 'int', 'DEFAULT 1'), c('name', 'keyString'),
      c('created_time', 'int64'), c('accessed_time', 'int64'), c('expired_time', 'int64', 'DEFAULT -1'), c('remain_quota', 'int', 'DEFAULT 0'),
      c('unlimited_quota', 'bool', 'DEFAULT false'), c('model_limits_enabled', 'bool', 'DEFAULT false'),
      c('model_limits', 'sql:varchar(1024)', "DEFAULT ''"), c('allow_ips', 'keyString', "DEFAULT ''"), c('used_quota', 'int', 'DEFAULT 0'),
      c('group', 'keyString', "DEFAULT ''"), c('deleted_at', 'deletedAt'),
    ],
    unique: ['key'],
    indexes: ['user_id', 'name', 'deleted_at'],
  },
  {
    name: 'channels',
    columns: [
      c('id', 'pk'), c('type', 'int', 'DEFAULT 0'), c('key', 'string', 'NOT NULL'), c('openai_organization', 'string'), c('test_model', 'string'),
      c('status', 'int', 'DEFAULT 1'), c('name', 'keyString'), c('weight', 'uint', 'DEFAULT 0'), c('created_time', 'int64'), c('test_time', 'int64'),
      c('response_time', 'int'), c('base_url', 'keyString', "DEFAULT ''"), c('other', 'string'), c('balance', 'float'),
      c('balance_updated_time', 'int64'), c('models', 'string'), c('group', 'sql:varchar(64)', "DEFAULT 'default'"),
      c('used_quota', 'int64', 'DEFAULT 0'), c('model_mapping', 'sql:varchar(1024)', "DEFAULT ''"),
      c('status_code_mapping', 'sql:varchar(1024)', "DEFAULT ''"), c('priority', 'int64', 'DEFAULT 0'), c('auto_ban', 'int', 'DEFAULT 1'),
      c('other_info', 'string'), c('tag', 'keyString'), c('setting', 'sql:text'),
    ],
    indexes: ['name', 'tag'],
  },
  {
    name: 'abilities',
    columns: [
      c('group', 'sql:varchar(64)'), c('model', 'sql:varchar(64)'), c('channel_id', 'int'), c('enabled', 'bool'),
      c('priority', 'int64', 'DEFAULT 0'), c('weight', 'uint', 'DEFAULT 0'), c('tag', 'keyString'),
    ],
    primaryKey: ['group', 'model', 'channel_id'],
    indexes: ['channel_id', 'priority', 'weight', 'tag'],
  },
  { name: 'options', columns: [c('key', 'keyString'), c('value', 'string')], primaryKey: ['key'] },
  {
    name: 'redemptions',
    columns: [
      c('id', 'pk'), c('user_id', 'int'), c('key', 'sql:char(32)'), c('status', 'int', 'DEFAULT 1'), c('name', 'keyString'),
      c('quota', 'int', 'DEFAULT 100'), c('created_time', 'int64'), c('redeemed_time', 'int64'), c('used_user_id', 'int'), c('deleted_at', 'deletedAt'),
    ],
    unique: ['key'],
    indexes: ['name', 'deleted_at'],
  },
  {
    name: 'top_ups',
    columns: [c('id', 'pk'), c('user_id', 'int'), c('amount', 'int64'), c('money', 'float'), c('trade_no', 'string'), c('create_time', 'int64'), c('status', 'string')],
    indexes: ['user_id'],
  },
  {
    name: 'logs',
    columns: [
      c('id', 'pk'), c('user_id', 'int'), c('created_at', 'int64'), c('type', 'int'), c('content', 'string'), c('username', 'keyString', "DEFAULT ''"),
      c('token_name', 'keyString', "DEFAULT ''"), c('model_name', 'keyString', "DEFAULT ''"), c('quota', 'int', 'DEFAULT 0'),
      c('prompt_tokens', 'int', 'DEFAULT 0'), c('completion_tokens', 'int', 'DEFAULT 0'), c('use_time', 'int', 'DEFAULT 0'),
      c('is_stream', 'bool', 'DEFAULT false'), c('channel_id', 'int'), c('token_id', 'int', 'DEFAULT 0'), c('group', 'keyString'), c('other', 'string'),
    ],
    indexes: ['user_id', 'token_name', 'model_name', 'channel_id', 'token_id', 'group'],
  },
  {
    name: 'quota_data',
    columns: [
      c('id', 'pk'), c('user_id', 'int'), c('username', 'sql:varchar(64)', "DEFAULT ''"), c('model_name', 'sql:varchar(64)', "DEFAULT ''"),
      c('created_at', 'int64'), c('token_used', 'int', 'DEFAULT 0'), c('count', 'int', 'DEFAULT 0'), c('quota', 'int', 'DEFAULT 0'),
    ],
    indexes: ['user_id', 'created_at'],
  },
  {
    name: 'midjourneys',
    columns: [
      c('id', 'pk'), c('code', 'int'), c('user_id', 'int'), c('action', 'sql:varchar(40)'), c('mj_id', 'keyString'), c('prompt', 'string'),
      c('submit_time', 'int64'), c('status', 'sql:varchar(20)'), c('progress', 'sql:varchar(30)'), c('channel_id', 'int'), c('quota', 'int'),
    ],
    indexes: ['user_id', 'mj_id'],
  },
];

function columnType(kind: SqlKind, type: GoType): string {
  if (type.startsWith('sql:')) return type.slice(4);
  const byKind: Record<BaseType, [sqlite: string, mysql: string, postgres: string]> = {
    pk: ['integer PRIMARY KEY AUTOINCREMENT', 'bigint AUTO_INCREMENT', 'bigserial'],
    int: ['integer', 'bigint', 'bigint'],
    int64: ['integer', 'bigint', 'bigint'],
    uint: ['integer', 'bigint unsigned', 'bigint'],
    string: ['text', 'longtext', 'text'],
    keyString: ['text', 'varchar(191)', 'text'],
    bool: ['numeric', 'boolean', 'boolean'],
    float: ['real', 'double', 'decimal'],
    deletedAt: ['datetime', 'datetime(3)', 'timestamptz'],
  };
  const [sqlite, mysql, postgres] = byKind[type as BaseType];
  return kind === 'sqlite' ? sqlite : kind === 'mysql' ? mysql : postgres;
}

export const quoteIdent = (kind: SqlKind, name: string) => (kind === 'postgres' ? `"${name}"` : `\`${name}\``);

/** The CREATE TABLE and CREATE INDEX statements GORM issues for `table` on `kind`. */
export function tableDdl(kind: SqlKind, table: Table): string[] {
  const q = (n: string) => quoteIdent(kind, n);
  const defs = table.columns.map((col) => `${q(col.name)} ${columnType(kind, col.type)}${col.extra ? ` ${col.extra}` : ''}`);
  const hasSerial = table.columns.some((col) => col.type === 'pk');
  if (hasSerial && kind !== 'sqlite') defs.push(`PRIMARY KEY (${q('id')})`);
  if (table.primaryKey) defs.push(`PRIMARY KEY (${table.primaryKey.map(q).join(',')})`);
  const out = [`CREATE TABLE ${q(table.name)} (${defs.join(',')})`];
  // MySQL cannot index a LONGTEXT or TEXT without a prefix length; GORM's VARCHAR(191) avoids it.
  for (const col of table.unique ?? []) out.push(`CREATE UNIQUE INDEX ${q(`idx_${table.name}_${col}`)} ON ${q(table.name)} (${q(col)})`);
  for (const col of table.indexes ?? []) out.push(`CREATE INDEX ${q(`idx_${table.name}_${col}`)} ON ${q(table.name)} (${q(col)})`);
  return out;
}
