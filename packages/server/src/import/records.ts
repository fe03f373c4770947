/**
 * Redemption codes, top-up orders, usage logs and the hourly usage summary (quota_data). None of
 * them holds a balance: what a used code or a paid order added is already in the user's quota,
 * which comes over through the ledger (accounts.ts). An unused code stays redeemable and a pending
 * order can still be completed, each then through ModelGate's ledger.
 */
import { sql } from 'kysely';
import { copyById, sameColumns, type ImportContext, type Mapped } from './copy.js';
import { rebuildModelSums } from '../modules/data/quota-data.repository.js';
import { presentColumns } from './source-schema.js';
import { deletedAt, flag, float, int, RowError, text, type Row } from './values.js';

export async function importRedemptions(ctx: ImportContext): Promise<void> {
  await copyById(ctx, {
    table: 'redemptions',
    columns: presentColumns(ctx.source, 'redemptions'),
    map(row): Mapped<'redemptions'> {
      const key = text(row, 'key', 32).trim();
      if (!key) throw new RowError('key is empty');
      const quota = int(row, 'quota');
      if (quota < 0) throw new RowError(`quota ${quota} is below zero`);
      return {
        id: int(row, 'id'),
        user_id: int(row, 'user_id'),
        key,
        status: int(row, 'status', 1),
        name: text(row, 'name', 64),
        quota,
        created_time: int(row, 'created_time'),
        redeemed_time: int(row, 'redeemed_time'),
        used_user_id: int(row, 'used_user_id'),
        deleted_at: deletedAt(row),
      };
    },
    ours: (t, rows) => sameColumns(t, 'redemptions', rows, ['key']),
    describe: (r) => `code ${r.name || r.key.slice(0, 4) + '…'}`,
  });
}

export async function importTopUps(ctx: ImportContext): Promise<void> {
  // ModelGate's trade_no is unique (a payment notification must find one order); new-api's is not.
  const seen = new Set<string>();
  await copyById(ctx, {
    table: 'top_ups',
    columns: presentColumns(ctx.source, 'top_ups'),
    map(row): Mapped<'top_ups'> | null {
      const id = int(row, 'id');
      const tradeNo = text(row, 'trade_no', 191);
      if (seen.has(tradeNo)) {
        ctx.report.issue('top_ups', `#${id}`, `trade_no "${tradeNo}" repeats an earlier order's: not imported`);
        return null;
      }
      seen.add(tradeNo);
      return {
        id,
        user_id: int(row, 'user_id'),
        amount: int(row, 'amount'),
        money: float(row, 'money'),
        trade_no: tradeNo,
        create_time: int(row, 'create_time'),
        status: text(row, 'status', 20),
      };
    },
    ours: (t, rows) => sameColumns(t, 'top_ups', rows, ['trade_no']),
    describe: (r) => `order ${r.trade_no}`,
  });
}

export async function importLogs(ctx: ImportContext): Promise<void> {
  await copyById(ctx, {
    table: 'logs',
    columns: presentColumns(ctx.source, 'logs'),
    map(row): Mapped<'logs'> {
      return {
        id: int(row, 'id'),
        user_id: int(row, 'user_id'),
        created_at: int(row, 'created_at'),
        type: int(row, 'type'),
        content: text(row, 'content'),
        username: text(row, 'username', 64),
        token_name: text(row, 'token_name', 64),
        model_name: text(row, 'model_name', 255),
        quota: int(row, 'quota'),
        prompt_tokens: int(row, 'prompt_tokens'),
        completion_tokens: int(row, 'completion_tokens'),
        use_time: int(row, 'use_time'),
        is_stream: flag(row, 'is_stream'),
        channel_id: int(row, 'channel_id'),
        token_id: int(row, 'token_id'),
        group: text(row, 'group', 64),
        other: text(row, 'other'),
        request_id: null,
      };
    },
    ours: (t, rows) => sameColumns(t, 'logs', rows, ['created_at', 'user_id', 'type']),
    describe: (r) => `log of user #${r.user_id} at ${r.created_at}`,
  });
}

interface Usage {
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

const usageKey = (u: { user_id: unknown; model_name: unknown; created_at: unknown }) => `${Number(u.user_id)}\u0000${String(u.model_name)}\u0000${Number(u.created_at)}`;

function mapUsage(row: Row): Usage {
  return {
    user_id: int(row, 'user_id'),
    username: text(row, 'username', 64),
    model_name: text(row, 'model_name', 255),
    created_at: int(row, 'created_at'),
    token_used: int(row, 'token_used'),
    count: int(row, 'count'),
    quota: int(row, 'quota'),
  };
}

/**
 * quota_data is keyed in ModelGate by (user, model, hour); new-api's rows also carry the username,
 * so a renamed user (or two nodes flushing the same hour) can leave several rows for one key.
 * Those are added together. A key ModelGate already has is an earlier run's: left as it is. Row
 * ids are not kept (nothing refers to them); the key is the reference.
 */
export async function importQuotaData(ctx: ImportContext): Promise<void> {
  const counts = ctx.report.counts('quota_data');
  counts.source = await ctx.source.count('quota_data');
  const columns = presentColumns(ctx.source, 'quota_data');
  const added = new Set<string>();
  const present = new Set<string>();
  let merged = 0;
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = await ctx.source.batchById('quota_data', columns, after, 200);
    if (!rows.length) break;
    after = int(rows[rows.length - 1]!, 'id');
    const batch: Usage[] = [];
    for (const row of rows) {
      try {
        batch.push(mapUsage(row));
      } catch (err) {
        if (!(err instanceof RowError)) throw err;
        ctx.report.issue('quota_data', `#${String(row.id)}`, `${err.message}: not imported`);
        counts.skipped++;
      }
    }
    const users = [...new Set(batch.map((u) => u.user_id))];
    if (users.length) {
      const found = await ctx.t.selectFrom('quota_data').select(['user_id', 'model_name', 'created_at']).where('user_id', 'in', users).where('created_at', '>=', Math.min(...batch.map((u) => u.created_at))).where('created_at', '<=', Math.max(...batch.map((u) => u.created_at))).execute();
      for (const f of found) if (!added.has(usageKey(f))) present.add(usageKey(f));
    }
    const fresh: Usage[] = [];
    const repeats: Usage[] = [];
    for (const u of batch) {
      const key = usageKey(u);
      if (present.has(key)) counts.present++;
      else if (added.has(key)) repeats.push(u);
      else {
        added.add(key);
        fresh.push(u);
      }
    }
    // The first row of a key is inserted, then the repeats (in this batch or a later one) added to it.
    if (ctx.write && fresh.length) await ctx.t.insertInto('quota_data').values(fresh).execute();
    if (ctx.write) for (const u of repeats) await addUsage(ctx, u);
    merged += repeats.length;
    counts.imported += fresh.length + repeats.length;
  }
  if (merged) ctx.report.issue('quota_data', '', `${merged} row(s) repeat a (user, model, hour) of an earlier row (new-api's key also holds the username): added to that row`);
  // The dashboard's all-users view reads the per-model sums: recomputed over what is there now.
  if (ctx.write) await rebuildModelSums(ctx.t);
}

async function addUsage(ctx: ImportContext, u: Usage): Promise<void> {
  await ctx.t
    .updateTable('quota_data')
    .set({ count: sql`${sql.ref('count')} + ${u.count}`, quota: sql`${sql.ref('quota')} + ${u.quota}`, token_used: sql`${sql.ref('token_used')} + ${u.token_used}` })
    .where('user_id', '=', u.user_id)
    .where('model_name', '=', u.model_name)
    .where('created_at', '=', u.created_at)
    .execute();
}
