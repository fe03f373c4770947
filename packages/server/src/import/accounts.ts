/**
 * Users and tokens. Their balances go through the ledger: each row is inserted with zero balances,
 * then one `opening` ledger entry (ref `new-api:user:<id>` / `new-api:token:<id>`) brings in the
 * balance found in new-api, exactly as migration 0004 opened the balances of an existing
 * installation — so `npm run ledger:check` reconciles afterwards. The entry's ref is also how a
 * second run recognises a row it imported before.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Movement } from '../ledger/quota-ledger.js';
import { AccountRules, groupName, shownName } from './account-rules.js';
import { copyById, type ImportContext, type Mapped } from './copy.js';
import { presentColumns } from './source-schema.js';
import { deletedAt, emptyAsNull, flag, int, RowError, text, type Row } from './values.js';

export const userRef = (id: number) => `new-api:user:${id}`;
export const tokenRef = (id: number) => `new-api:token:${id}`;

/** Ids among `rows` whose opening entry this importer wrote. */
async function openedBy(t: Kysely<Database>, refs: Map<string, number>): Promise<Set<number>> {
  if (!refs.size) return new Set();
  const rows = await t.selectFrom('ledger_entries').select('ref').where('kind', '=', 'opening').where('ref', 'in', [...refs.keys()]).execute();
  return new Set(rows.map((r) => refs.get(r.ref ?? '')).filter((id): id is number => id !== undefined));
}

async function open(ctx: ImportContext, m: Movement): Promise<void> {
  // A real run writes inside one transaction (importer.ts): the entry commits or rolls back with every row.
  const r = await ctx.ledger.move(m, ctx.t as Transaction<Database>);
  if (r !== 'applied') throw new Error(`the opening ledger entry ${m.ref} was not applied (${r})`);
}

/**
 * What a row's mapping changed, said only when the row is imported (not again by a later run that
 * finds it present).
 */
class Adjustments {
  private readonly byId = new Map<number, string[]>();
  constructor(
    private readonly ctx: ImportContext,
    private readonly table: string,
  ) {}
  add(id: number, message: string): void {
    this.byId.set(id, [...(this.byId.get(id) ?? []), message]);
  }
  /** A balance ModelGate cannot hold below zero: imported as 0, and said so. */
  nonNegative(id: number, row: Row, col: string, why = ''): number {
    const v = int(row, col);
    if (v >= 0) return v;
    this.add(id, `${col} ${v} is below zero${why}; ModelGate balances never are: imported as 0`);
    return 0;
  }
  report(id: number): void {
    for (const m of this.byId.get(id) ?? []) this.ctx.report.issue(this.table, `#${id}`, m);
  }
}

export async function importUsers(ctx: ImportContext): Promise<void> {
  const balances = new Map<number, { quota: number; used: number; aff: number }>();
  const total = { n: 0, quota: 0, used: 0, aff: 0 };
  const adjusted = new Adjustments(ctx, 'users');
  const rules = await AccountRules.load(ctx.t);
  await copyById(ctx, {
    table: 'users',
    columns: presentColumns(ctx.source, 'users'),
    track: ctx.users,
    map(row): Mapped<'users'> {
      const id = int(row, 'id');
      const adjust = (m: string) => adjusted.add(id, m);
      const deleted = deletedAt(row);
      const user = rules.user(id, { username: text(row, 'username', 64), role: int(row, 'role', 1), email: text(row, 'email', 64), deleted: deleted !== null }, adjust);
      const mapped = {
        id,
        username: user.username,
        username_key: user.usernameKey,
        // bcrypt as new-api wrote it (Go's `$2a$`), so the old password keeps signing in.
        password: text(row, 'password', 255),
        display_name: shownName('display_name', text(row, 'display_name', 64), adjust),
        role: user.role,
        status: int(row, 'status', 1),
        email: user.email,
        github_id: text(row, 'github_id', 64),
        wechat_id: text(row, 'wechat_id', 64),
        telegram_id: text(row, 'telegram_id', 64),
        linux_do_id: text(row, 'linux_do_id', 64),
        access_token: emptyAsNull(row, 'access_token', 64),
        quota: 0,
        used_quota: 0,
        request_count: int(row, 'request_count'),
        group: groupName(text(row, 'group', 64).trim() || 'default', 'default', adjust),
        aff_code: emptyAsNull(row, 'aff_code', 32),
        aff_count: int(row, 'aff_count'),
        aff_quota: 0,
        aff_history: int(row, 'aff_history'),
        inviter_id: int(row, 'inviter_id'),
        created_at: int(row, 'created_at'),
        deleted_at: deleted,
      };
      // Last: a row refused above (a RowError) takes no name, email or role from the rows after it.
      balances.set(id, { quota: adjusted.nonNegative(id, row, 'quota'), used: int(row, 'used_quota'), aff: adjusted.nonNegative(id, row, 'aff_quota') });
      rules.claim(id, user);
      return mapped;
    },
    ours: (t, rows) => openedBy(t, new Map(rows.map((r) => [userRef(r.id), r.id]))),
    describe: (r) => `username ${r.username}`,
    async after(rows) {
      for (const r of rows) {
        const b = balances.get(r.id)!;
        adjusted.report(r.id);
        total.n++;
        total.quota += b.quota;
        total.used += b.used;
        total.aff += b.aff;
        if (ctx.write) await open(ctx, { kind: 'opening', userId: r.id, quota: b.quota, used: b.used, aff: b.aff, ref: userRef(r.id) });
      }
    },
  });
  if (total.n) ctx.report.notes.push(`opening balances of ${total.n} user(s): quota ${total.quota}, used_quota ${total.used}, aff_quota ${total.aff}`);
}

export async function importTokens(ctx: ImportContext): Promise<void> {
  const balances = new Map<number, { remain: number; used: number }>();
  const total = { n: 0, remain: 0, used: 0 };
  const adjusted = new Adjustments(ctx, 'tokens');
  await copyById(ctx, {
    table: 'tokens',
    columns: presentColumns(ctx.source, 'tokens'),
    map(row): Mapped<'tokens'> | null {
      const id = int(row, 'id');
      const userId = int(row, 'user_id');
      if (!ctx.users.has(userId)) {
        ctx.report.issue('tokens', `#${id}`, `its user #${userId} is not imported (missing from new-api's users, or skipped): not imported`);
        return null;
      }
      // new-api stores the key without `sk-`, as ModelGate does; a prefixed one would never match.
      let key = text(row, 'key').trim();
      if (key.startsWith('sk-')) key = key.slice(3);
      if (!key || key.length > 48 || !/^[A-Za-z0-9_]+$/.test(key)) throw new RowError('key is not 1–48 letters and digits');
      const unlimited = flag(row, 'unlimited_quota');
      const remain = adjusted.nonNegative(id, row, 'remain_quota', unlimited ? ' (an unlimited token, where it is not used)' : '');
      balances.set(id, { remain, used: int(row, 'used_quota') });
      const adjust = (m: string) => adjusted.add(id, m);
      return {
        id,
        user_id: userId,
        key,
        status: int(row, 'status', 1),
        name: shownName('name', text(row, 'name', 64), adjust),
        created_time: int(row, 'created_time'),
        accessed_time: int(row, 'accessed_time'),
        expired_time: int(row, 'expired_time', -1),
        remain_quota: 0,
        unlimited_quota: unlimited,
        model_limits_enabled: flag(row, 'model_limits_enabled'),
        model_limits: text(row, 'model_limits', 1024),
        allow_ips: text(row, 'allow_ips', 1024),
        used_quota: 0,
        group: groupName(text(row, 'group', 64), '', adjust),
        deleted_at: deletedAt(row),
      };
    },
    ours: (t, rows) => openedBy(t, new Map(rows.map((r) => [tokenRef(r.id), r.id]))),
    describe: (r) => `token of user #${r.user_id}`,
    async after(rows) {
      for (const r of rows) {
        const b = balances.get(r.id)!;
        adjusted.report(r.id);
        total.n++;
        total.remain += b.remain;
        total.used += b.used;
        if (ctx.write) await open(ctx, { kind: 'opening', userId: r.user_id, tokenId: r.id, tokenRemain: b.remain, tokenUsed: b.used, ref: tokenRef(r.id) });
      }
    },
  });
  if (total.n) ctx.report.notes.push(`opening balances of ${total.n} token(s): remain_quota ${total.remain}, used_quota ${total.used}`);
}
