/**
 * The new-api (v0.4.x) tables this importer reads, as GORM's AutoMigrate creates them
 * (model/*.go: snake_case columns, `deleted_at` soft deletes). `required` columns must exist or the
 * database is not a new-api schema this importer understands; `optional` ones are read when
 * present (some were added during the 0.4 line). Any other column is reported as not imported.
 */
import { ImportError, type Source } from './source.js';

export interface SourceTable {
  name: string;
  /** A required table must exist; an optional one (logs may live in LOG_SQL_DSN) is reported when absent. */
  required: boolean;
  columns: { required: readonly string[]; optional: readonly string[] };
}

export const SOURCE_TABLES = {
  users: {
    name: 'users',
    required: true,
    columns: {
      required: ['id', 'username', 'password', 'role', 'status', 'quota', 'used_quota', 'group', 'deleted_at'],
      optional: ['display_name', 'email', 'github_id', 'wechat_id', 'telegram_id', 'linux_do_id', 'access_token', 'request_count', 'aff_code', 'aff_count', 'aff_quota', 'aff_history', 'inviter_id', 'created_at'],
    },
  },
  tokens: {
    name: 'tokens',
    required: true,
    columns: {
      required: ['id', 'user_id', 'key', 'status', 'expired_time', 'remain_quota', 'unlimited_quota', 'used_quota', 'deleted_at'],
      optional: ['name', 'created_time', 'accessed_time', 'model_limits_enabled', 'model_limits', 'allow_ips', 'group'],
    },
  },
  channels: {
    name: 'channels',
    required: true,
    columns: {
      required: ['id', 'type', 'key', 'status', 'name', 'models', 'group'],
      optional: [
        'openai_organization', 'test_model', 'weight', 'created_time', 'test_time', 'response_time', 'base_url', 'other', 'balance',
        'balance_updated_time', 'used_quota', 'model_mapping', 'status_code_mapping', 'priority', 'auto_ban', 'other_info', 'tag', 'setting',
        'max_input_tokens',
      ],
    },
  },
  abilities: {
    name: 'abilities',
    required: true,
    columns: { required: ['group', 'model', 'channel_id', 'enabled'], optional: ['priority', 'weight', 'tag'] },
  },
  options: { name: 'options', required: true, columns: { required: ['key', 'value'], optional: [] } },
  redemptions: {
    name: 'redemptions',
    required: true,
    columns: { required: ['id', 'key', 'status', 'quota', 'deleted_at'], optional: ['user_id', 'name', 'created_time', 'redeemed_time', 'used_user_id'] },
  },
  top_ups: {
    name: 'top_ups',
    required: true,
    columns: { required: ['id', 'user_id', 'amount', 'money', 'trade_no', 'create_time', 'status'], optional: [] },
  },
  logs: {
    name: 'logs',
    required: false,
    columns: {
      required: ['id', 'user_id', 'created_at', 'type', 'quota'],
      optional: ['content', 'username', 'token_name', 'model_name', 'prompt_tokens', 'completion_tokens', 'use_time', 'is_stream', 'channel_id', 'token_id', 'group', 'other'],
    },
  },
  quota_data: {
    name: 'quota_data',
    required: false,
    columns: { required: ['id', 'user_id', 'model_name', 'created_at', 'count', 'quota'], optional: ['username', 'token_used'] },
  },
} as const satisfies Record<string, SourceTable>;

export type SourceTableName = keyof typeof SOURCE_TABLES;

/** Tables new-api has and ModelGate does not import, with the reason the report gives. */
const LEFT_BEHIND: Record<string, string> = {
  midjourneys: 'Midjourney task history; ModelGate does not poll tasks started by new-api',
  tasks: 'asynchronous (Suno) task history; ModelGate does not poll tasks started by new-api',
};

/** The columns of `table` this importer reads that the source has. */
export function presentColumns(source: Source, table: SourceTableName): string[] {
  const cols = source.tables.get(table) ?? new Set<string>();
  const spec = SOURCE_TABLES[table].columns;
  return [...spec.required, ...spec.optional].filter((c) => cols.has(c));
}

export interface SchemaCheck {
  /** Optional tables the source has not got. */
  absent: SourceTableName[];
  /** `table.column` of every source column that is not imported. */
  unknownColumns: Array<{ table: string; column: string }>;
  /** Source tables not imported at all, with why. */
  otherTables: Array<{ table: string; why: string }>;
}

/**
 * Checks the source against the tables and columns above; a missing required table or column
 * stops the import before anything is written, naming everything missing.
 */
export function checkSourceSchema(source: Source): SchemaCheck {
  const missing: string[] = [];
  const absent: SourceTableName[] = [];
  const unknownColumns: SchemaCheck['unknownColumns'] = [];
  for (const name of Object.keys(SOURCE_TABLES) as SourceTableName[]) {
    const spec: SourceTable = SOURCE_TABLES[name];
    const cols = source.tables.get(name);
    if (!cols) {
      if (spec.required) missing.push(`table ${name}`);
      else absent.push(name);
      continue;
    }
    for (const c of spec.columns.required) if (!cols.has(c)) missing.push(`column ${name}.${c}`);
    const known = new Set<string>([...spec.columns.required, ...spec.columns.optional]);
    for (const c of cols) if (!known.has(c)) unknownColumns.push({ table: name, column: c });
  }
  if (missing.length) {
    throw new ImportError(
      `${source.display} is not a new-api (v0.4.x) database this importer recognises; missing: ${missing.join(', ')}. Nothing was written.`,
    );
  }
  const otherTables = [...source.tables.keys()]
    .filter((t) => !(t in SOURCE_TABLES))
    .sort()
    .map((table) => ({ table, why: LEFT_BEHIND[table] ?? 'not a table ModelGate imports' }));
  return { absent, unknownColumns, otherTables };
}

/**
 * new-api's LOG_SQL_DSN database: it must hold a `logs` table with the required columns (it holds
 * nothing else the importer reads). Answers the columns that are not imported.
 */
export function checkLogSource(source: Source): string[] {
  const spec = SOURCE_TABLES.logs.columns;
  const cols = source.tables.get('logs');
  if (!cols) throw new ImportError(`--from-logs: ${source.display} has no logs table (new-api's LOG_SQL_DSN database holds one). Nothing was written.`);
  const missing = spec.required.filter((c) => !cols.has(c));
  if (missing.length) throw new ImportError(`--from-logs: ${source.display} is not a new-api log database; missing: ${missing.map((c) => `column logs.${c}`).join(', ')}. Nothing was written.`);
  const known = new Set<string>([...spec.required, ...spec.optional]);
  return [...cols].filter((c) => !known.has(c));
}
