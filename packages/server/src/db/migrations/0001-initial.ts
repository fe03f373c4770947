import type { Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';
import { defaultEmpty, defaultZero, TEXT, withId } from './column-types.js';

/** Every table of the spec's entities, with the indexes their list, search and filter calls need. */
export async function up(db: Kysely<unknown>, kind: SqlKind): Promise<void> {
  const s = db.schema;
  await withId(kind, s.createTable('users'))
    .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('password', 'varchar(255)', (c) => c.notNull())
    .addColumn('display_name', 'varchar(64)', defaultEmpty)
    .addColumn('role', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('email', 'varchar(64)', defaultEmpty)
    .addColumn('github_id', 'varchar(64)', defaultEmpty)
    .addColumn('wechat_id', 'varchar(64)', defaultEmpty)
    .addColumn('telegram_id', 'varchar(64)', defaultEmpty)
    .addColumn('linux_do_id', 'varchar(64)', defaultEmpty)
    .addColumn('access_token', 'varchar(64)', (c) => c.unique())
    .addColumn('quota', 'bigint', defaultZero)
    .addColumn('used_quota', 'bigint', defaultZero)
    .addColumn('request_count', 'bigint', defaultZero)
    .addColumn('group', 'varchar(64)', (c) => c.notNull().defaultTo('default'))
    .addColumn('aff_code', 'varchar(32)', (c) => c.unique())
    .addColumn('aff_count', 'integer', defaultZero)
    .addColumn('aff_quota', 'bigint', defaultZero)
    .addColumn('aff_history', 'bigint', defaultZero)
    .addColumn('inviter_id', 'bigint', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('deleted_at', 'bigint')
    .execute();
  await s.createIndex('idx_users_display_name').on('users').column('display_name').execute();
  await s.createIndex('idx_users_email').on('users').column('email').execute();
  await s.createIndex('idx_users_group').on('users').column('group').execute();
  await s.createIndex('idx_users_inviter_id').on('users').column('inviter_id').execute();
  for (const col of ['github_id', 'wechat_id', 'telegram_id', 'linux_do_id']) {
    await s.createIndex(`idx_users_${col}`).on('users').column(col).execute();
  }

  await withId(kind, s.createTable('tokens'))
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('key', 'varchar(48)', (c) => c.notNull().unique())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', 'varchar(64)', defaultEmpty)
    .addColumn('created_time', 'bigint', defaultZero)
    .addColumn('accessed_time', 'bigint', defaultZero)
    .addColumn('expired_time', 'bigint', (c) => c.notNull().defaultTo(-1))
    .addColumn('remain_quota', 'bigint', defaultZero)
    .addColumn('unlimited_quota', 'integer', defaultZero)
    .addColumn('model_limits_enabled', 'integer', defaultZero)
    .addColumn('model_limits', 'varchar(1024)', defaultEmpty)
    .addColumn('allow_ips', 'varchar(1024)', defaultEmpty)
    .addColumn('used_quota', 'bigint', defaultZero)
    .addColumn('group', 'varchar(64)', defaultEmpty)
    .addColumn('deleted_at', 'bigint')
    .execute();
  await s.createIndex('idx_tokens_user_id').on('tokens').columns(['user_id', 'id']).execute();
  await s.createIndex('idx_tokens_name').on('tokens').column('name').execute();

  await withId(kind, s.createTable('channels'))
    .addColumn('type', 'integer', defaultZero)
    .addColumn('key', TEXT, (c) => c.notNull())
    .addColumn('openai_organization', 'varchar(255)')
    .addColumn('test_model', 'varchar(255)')
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', 'varchar(255)', defaultEmpty)
    .addColumn('weight', 'integer', defaultZero)
    .addColumn('created_time', 'bigint', defaultZero)
    .addColumn('test_time', 'bigint', defaultZero)
    .addColumn('response_time', 'integer', defaultZero)
    .addColumn('base_url', 'varchar(1024)')
    .addColumn('other', TEXT)
    .addColumn('balance', 'double precision', defaultZero)
    .addColumn('balance_updated_time', 'bigint', defaultZero)
    .addColumn('models', TEXT)
    .addColumn('group', 'varchar(255)', (c) => c.notNull().defaultTo('default'))
    .addColumn('used_quota', 'bigint', defaultZero)
    .addColumn('model_mapping', TEXT)
    .addColumn('status_code_mapping', 'varchar(1024)')
    .addColumn('priority', 'bigint', defaultZero)
    .addColumn('auto_ban', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('other_info', TEXT)
    .addColumn('tag', 'varchar(255)')
    .addColumn('setting', TEXT)
    .addColumn('max_input_tokens', 'integer', defaultZero)
    .execute();
  await s.createIndex('idx_channels_name').on('channels').column('name').execute();
  await s.createIndex('idx_channels_tag').on('channels').column('tag').execute();

  await s
    .createTable('abilities')
    .addColumn('group', 'varchar(64)', (c) => c.notNull())
    .addColumn('model', 'varchar(255)', (c) => c.notNull())
    .addColumn('channel_id', 'bigint', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('priority', 'bigint', defaultZero)
    .addColumn('weight', 'integer', defaultZero)
    .addColumn('tag', 'varchar(255)')
    .addPrimaryKeyConstraint('abilities_pk', ['group', 'model', 'channel_id'])
    .execute();
  await s.createIndex('idx_abilities_channel_id').on('abilities').column('channel_id').execute();
  await s.createIndex('idx_abilities_tag').on('abilities').column('tag').execute();

  await s
    .createTable('options')
    .addColumn('key', 'varchar(191)', (c) => c.primaryKey())
    .addColumn('value', TEXT)
    .execute();

  await withId(kind, s.createTable('redemptions'))
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('key', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', 'varchar(64)', defaultEmpty)
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(100))
    .addColumn('created_time', 'bigint', defaultZero)
    .addColumn('redeemed_time', 'bigint', defaultZero)
    .addColumn('used_user_id', 'bigint', defaultZero)
    .addColumn('deleted_at', 'bigint')
    .execute();
  await s.createIndex('idx_redemptions_name').on('redemptions').column('name').execute();

  await withId(kind, s.createTable('logs'))
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('type', 'integer', defaultZero)
    .addColumn('content', TEXT)
    .addColumn('username', 'varchar(64)', defaultEmpty)
    .addColumn('token_name', 'varchar(64)', defaultEmpty)
    .addColumn('model_name', 'varchar(255)', defaultEmpty)
    .addColumn('quota', 'bigint', defaultZero)
    .addColumn('prompt_tokens', 'bigint', defaultZero)
    .addColumn('completion_tokens', 'bigint', defaultZero)
    .addColumn('use_time', 'integer', defaultZero)
    .addColumn('is_stream', 'integer', defaultZero)
    .addColumn('channel_id', 'bigint', defaultZero)
    .addColumn('token_id', 'bigint', defaultZero)
    .addColumn('group', 'varchar(64)', defaultEmpty)
    .addColumn('other', TEXT)
    .addColumn('request_id', 'varchar(64)', (c) => c.unique())
    .execute();
  // The log screens always filter by a time window, often with type, user, model, token or channel.
  await s.createIndex('idx_logs_created_at').on('logs').columns(['created_at', 'type']).execute();
  await s.createIndex('idx_logs_user_created').on('logs').columns(['user_id', 'created_at']).execute();
  await s.createIndex('idx_logs_username').on('logs').columns(['username', 'created_at']).execute();
  await s.createIndex('idx_logs_model_name').on('logs').columns(['model_name', 'created_at']).execute();
  await s.createIndex('idx_logs_token_name').on('logs').columns(['token_name', 'created_at']).execute();
  await s.createIndex('idx_logs_channel_id').on('logs').columns(['channel_id', 'created_at']).execute();
  await s.createIndex('idx_logs_token_id').on('logs').column('token_id').execute();

  await withId(kind, s.createTable('midjourneys'))
    .addColumn('code', 'integer', defaultZero)
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('action', 'varchar(40)', defaultEmpty)
    .addColumn('mj_id', 'varchar(191)', defaultEmpty)
    .addColumn('prompt', TEXT)
    .addColumn('prompt_en', TEXT)
    .addColumn('description', TEXT)
    .addColumn('state', TEXT)
    .addColumn('submit_time', 'bigint', defaultZero)
    .addColumn('start_time', 'bigint', defaultZero)
    .addColumn('finish_time', 'bigint', defaultZero)
    .addColumn('image_url', TEXT)
    .addColumn('status', 'varchar(20)', defaultEmpty)
    .addColumn('progress', 'varchar(30)', defaultEmpty)
    .addColumn('fail_reason', TEXT)
    .addColumn('channel_id', 'bigint', defaultZero)
    .addColumn('quota', 'bigint', defaultZero)
    .addColumn('buttons', TEXT)
    .addColumn('properties', TEXT)
    .execute();
  await s.createIndex('idx_mj_user_submit').on('midjourneys').columns(['user_id', 'submit_time']).execute();
  await s.createIndex('idx_mj_mj_id').on('midjourneys').column('mj_id').execute();
  await s.createIndex('idx_mj_submit_time').on('midjourneys').column('submit_time').execute();
  await s.createIndex('idx_mj_progress').on('midjourneys').column('progress').execute();

  await withId(kind, s.createTable('tasks'))
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('updated_at', 'bigint', defaultZero)
    .addColumn('task_id', 'varchar(191)', defaultEmpty)
    .addColumn('platform', 'varchar(30)', defaultEmpty)
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('channel_id', 'bigint', defaultZero)
    .addColumn('quota', 'bigint', defaultZero)
    .addColumn('action', 'varchar(40)', defaultEmpty)
    .addColumn('status', 'varchar(20)', defaultEmpty)
    .addColumn('fail_reason', TEXT)
    .addColumn('submit_time', 'bigint', defaultZero)
    .addColumn('start_time', 'bigint', defaultZero)
    .addColumn('finish_time', 'bigint', defaultZero)
    .addColumn('progress', 'varchar(30)', defaultEmpty)
    .addColumn('properties', TEXT)
    .addColumn('data', TEXT)
    .execute();
  await s.createIndex('idx_tasks_user_submit').on('tasks').columns(['user_id', 'submit_time']).execute();
  await s.createIndex('idx_tasks_task_id').on('tasks').column('task_id').execute();
  await s.createIndex('idx_tasks_submit_time').on('tasks').column('submit_time').execute();
  await s.createIndex('idx_tasks_progress').on('tasks').column('progress').execute();

  await withId(kind, s.createTable('top_ups'))
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('amount', 'bigint', defaultZero)
    .addColumn('money', 'double precision', defaultZero)
    .addColumn('trade_no', 'varchar(191)', (c) => c.notNull().unique())
    .addColumn('create_time', 'bigint', defaultZero)
    .addColumn('status', 'varchar(20)', defaultEmpty)
    .execute();
  await s.createIndex('idx_top_ups_user_id').on('top_ups').column('user_id').execute();

  await withId(kind, s.createTable('quota_data'))
    .addColumn('user_id', 'bigint', defaultZero)
    .addColumn('username', 'varchar(64)', defaultEmpty)
    .addColumn('model_name', 'varchar(255)', defaultEmpty)
    .addColumn('created_at', 'bigint', defaultZero)
    .addColumn('token_used', 'bigint', defaultZero)
    .addColumn('count', 'bigint', defaultZero)
    .addColumn('quota', 'bigint', defaultZero)
    .execute();
  await s
    .createIndex('idx_quota_data_key')
    .on('quota_data')
    .columns(['user_id', 'model_name', 'created_at'])
    .unique()
    .execute();
  await s.createIndex('idx_quota_data_created').on('quota_data').columns(['created_at', 'username']).execute();
}
