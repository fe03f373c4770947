import { LogType } from '@modelgate/shared';
import type { QuotaDataEntry } from '@modelgate/shared/api';
import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';
import { upsert } from '../../db/dialect.js';

export const HOUR_SEC = 3600;

/** Recomputes every per-model sum from quota_data (after an import wrote quota_data directly). */
export async function rebuildModelSums(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('quota_data_models').execute();
  await sql`INSERT INTO quota_data_models (model_name, created_at, token_used, count, quota)
    SELECT model_name, created_at, SUM(token_used), SUM(count), SUM(quota) FROM quota_data GROUP BY model_name, created_at`.execute(db);
}

function entry(r: { model_name: string; created_at: unknown; token_used: unknown; count: unknown; quota: unknown }): QuotaDataEntry {
  return { model_name: r.model_name, created_at: Number(r.created_at), token_used: Number(r.token_used ?? 0), count: Number(r.count ?? 0), quota: Number(r.quota ?? 0) };
}

/**
 * The all-users dashboard answer is kept this long per range of hours. It is 720 hours × every
 * model (14 400 rows, ≈ 1.3 MB of JSON, for 90 days of 20 models): read and built anew at each
 * opening of the dashboard it cost 40–75 ms of the server's time. The rows change only when the
 * export job runs (every DataExportInterval minutes, for the newest hours) or on an import; an
 * export by this process drops the kept answers at once, one by another node is seen within this
 * time.
 */
export const ALL_USERS_CACHE_MS = 60_000;
/** Ranges kept at once (≈ 1–2 MB each at 90 days). */
const ALL_USERS_CACHE_SIZE = 8;

/** Bumped when this process rewrites per-model hours of a database: answers kept from before are dropped. */
const modelSumsVersion = new WeakMap<Db, number>();

/** Rows written per statement when an hour is flushed. */
const UPSERT_BATCH = 200;

/** The start of the hour `ts` falls in (Unix seconds, UTC hours like the reference). */
export function hourOf(ts: number): number {
  return ts - (((ts % HOUR_SEC) + HOUR_SEC) % HOUR_SEC);
}

/**
 * quota_data: consumption per user × model × hour (reference §3.8), derived from the consume log
 * rows. An hour is always recomputed whole from the log and written with set semantics, so
 * running the export twice, or on two nodes at once, gives the same rows.
 */
export class QuotaDataRepository {
  constructor(private readonly handle: Db) {}

  private get db() {
    return this.handle.db;
  }

  /** Start of the newest hour already exported, if any. */
  async newestHour(): Promise<number | undefined> {
    const r = await this.db.selectFrom('quota_data').select((eb) => eb.fn.max('created_at').as('m')).executeTakeFirst();
    return r?.m === null || r?.m === undefined ? undefined : Number(r.m);
  }

  /** Start of the first hour at or after `from` that has a consume row, if any. */
  async nextLogHour(from: number): Promise<number | undefined> {
    const r = await this.db
      .selectFrom('logs')
      .select((eb) => eb.fn.min('created_at').as('m'))
      .where('created_at', '>=', from)
      .where('type', '=', LogType.Consume)
      .executeTakeFirst();
    return r?.m === null || r?.m === undefined ? undefined : hourOf(Number(r.m));
  }

  /** Recomputes one hour from the log; returns how many (user, model) rows it wrote. */
  async exportHour(hour: number): Promise<number> {
    const rows = await this.db
      .selectFrom('logs')
      .select((eb) => [
        'user_id',
        'model_name',
        eb.fn.max('username').as('username'),
        eb.fn.countAll().as('count'),
        eb.fn.sum('quota').as('quota'),
        eb.fn.sum(eb('prompt_tokens', '+', eb.ref('completion_tokens'))).as('token_used'),
      ])
      .where('created_at', '>=', hour)
      .where('created_at', '<', hour + HOUR_SEC)
      .where('type', '=', LogType.Consume)
      .groupBy(['user_id', 'model_name'])
      .execute();
    const values = rows.map((r) => ({
      user_id: Number(r.user_id),
      username: String(r.username ?? '').slice(0, 64),
      model_name: r.model_name,
      created_at: hour,
      count: Number(r.count),
      quota: Number(r.quota ?? 0),
      token_used: Number(r.token_used ?? 0),
    }));
    for (let i = 0; i < values.length; i += UPSERT_BATCH) {
      await upsert(this.db, this.handle.kind, 'quota_data', values.slice(i, i + UPSERT_BATCH), ['user_id', 'model_name', 'created_at'], ['username', 'count', 'quota', 'token_used']);
    }
    // The same hour summed over users, for the all-users dashboard (migration 0011).
    const perModel = new Map<string, { model_name: string; created_at: number; count: number; quota: number; token_used: number }>();
    for (const v of values) {
      const m = perModel.get(v.model_name) ?? { model_name: v.model_name, created_at: hour, count: 0, quota: 0, token_used: 0 };
      m.count += v.count;
      m.quota += v.quota;
      m.token_used += v.token_used;
      perModel.set(v.model_name, m);
    }
    const models = [...perModel.values()];
    for (let i = 0; i < models.length; i += UPSERT_BATCH) {
      await upsert(this.db, this.handle.kind, 'quota_data_models', models.slice(i, i + UPSERT_BATCH), ['model_name', 'created_at'], ['count', 'quota', 'token_used']);
    }
    if (models.length) modelSumsVersion.set(this.handle, (modelSumsVersion.get(this.handle) ?? 0) + 1);
    return values.length;
  }

  /**
   * Hourly buckets per model between `start` and `end` (inclusive), summed over the matching users:
   * one user by id (`/api/data/self`) or by username (the admin filter), else everyone.
   */
  async query(f: { start: number; end: number; userId?: number; username?: string }): Promise<QuotaDataEntry[]> {
    if (f.userId === undefined && !f.username) return this.allUsers(f.start, f.end);

    let q = this.db.selectFrom('quota_data').where('created_at', '>=', f.start).where('created_at', '<=', f.end);
    if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
    if (f.username) q = q.where('username', '=', f.username);
    const rows = await q
      .select((eb) => ['model_name', 'created_at', eb.fn.sum('token_used').as('token_used'), eb.fn.sum('count').as('count'), eb.fn.sum('quota').as('quota')])
      .groupBy(['model_name', 'created_at'])
      .orderBy('created_at')
      .orderBy('model_name')
      .execute();
    return rows.map(entry);
  }

  private readonly kept = new Map<string, { at: number; version: number; rows: Promise<QuotaDataEntry[]> }>();

  /**
   * Everyone: the per-model sums the export keeps, instead of summing every user's rows here. Rows
   * are hour starts, so the range is the hours from the first at or after `start` to the last at or
   * before `end`: dashboards opened seconds apart ask the same range, and share one kept answer
   * (ALL_USERS_CACHE_MS). Callers share the rows and must not change them.
   */
  private allUsers(start: number, end: number): Promise<QuotaDataEntry[]> {
    const first = hourOf(start) === start ? start : hourOf(start) + HOUR_SEC;
    const last = hourOf(end);
    const key = `${first}:${last}`;
    const now = Date.now();
    const version = modelSumsVersion.get(this.handle) ?? 0;
    const hit = this.kept.get(key);
    if (hit && hit.version === version && now - hit.at < ALL_USERS_CACHE_MS) return hit.rows;
    const rows = this.db
      .selectFrom('quota_data_models')
      .select(['model_name', 'created_at', 'token_used', 'count', 'quota'])
      .where('created_at', '>=', first)
      .where('created_at', '<=', last)
      .orderBy('created_at')
      .orderBy('model_name')
      .execute()
      .then((r) => r.map(entry));
    this.kept.delete(key);
    this.kept.set(key, { at: now, version, rows });
    // A failed read is not kept.
    rows.catch(() => this.kept.get(key)?.rows === rows && this.kept.delete(key));
    while (this.kept.size > ALL_USERS_CACHE_SIZE) this.kept.delete(this.kept.keys().next().value!);
    return rows;
  }
}
