import { usernameKey } from '@modelgate/shared';
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { insertReturningId } from '../../db/client.js';
import type { NewUser, UserRow, UserUpdate } from '../../db/schema.js';

export interface UserSearch {
  keyword?: string;
  group?: string;
  offset: number;
  limit: number;
}

/** Data access for users. Soft-deleted rows stay (usernames are never reused) but are not "active". */
export class UsersRepository {
  /** Called after a user row changes (the relay's user cache drops it). */
  onWrite?: (userId: number) => void;

  constructor(private readonly handle: Db) {}

  private get db() {
    return this.handle.db;
  }

  findActiveById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  }

  findAnyById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByAccessToken(token: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('access_token', '=', token).where('deleted_at', 'is', null).executeTakeFirst();
  }

  /**
   * Sign-in by username or email, both ignoring case (usernames are unique ignoring case, so a
   * name finds one account on every database). A username wins over an email; among accounts
   * that collided before migration 0014 the exact spelling wins.
   */
  async findForLogin(name: string): Promise<UserRow | undefined> {
    return (await this.findActiveByUsername(name)) ?? (name.includes('@') ? this.findActiveByEmail(name) : undefined);
  }

  /** The active user a typed username names: its exact spelling, else the one holding its key. */
  async findActiveByUsername(name: string): Promise<UserRow | undefined> {
    const key = usernameKey(name);
    const rows = await this.db
      .selectFrom('users')
      .selectAll()
      .where('deleted_at', 'is', null)
      // `username = name` also finds the rows left without a key (0014) and, through a
      // case-insensitive MySQL collation, accent variants: only an exact or key match counts.
      .where((eb) => eb.or([eb('username_key', '=', key), eb('username', '=', name)]))
      .orderBy('id')
      .limit(8)
      .execute();
    return rows.find((r) => r.username === name) ?? rows.find((r) => r.username_key === key);
  }

  /** The oldest active user whose email is `email` ignoring case. */
  findActiveByEmail(email: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('deleted_at', 'is', null)
      .where('email', '!=', '')
      .where(sql<string>`lower(email)`, '=', sql<string>`lower(${email})`)
      .orderBy('id')
      .executeTakeFirst();
  }

  /**
   * Whether a name is taken, by another user than `exceptId` (a user may re-case their own name):
   * `exact` for the same spelling, `caseless` for one that differs only in case (or in what NFKC
   * folds). Soft-deleted rows count: a cancelled username stays taken.
   */
  async usernameTaken(username: string, exceptId?: number): Promise<'exact' | 'caseless' | null> {
    let q = this.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where((eb) => eb.or([eb('username_key', '=', usernameKey(username)), eb('username', '=', username)]));
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    const rows = await q.limit(8).execute();
    if (!rows.length) return null;
    return rows.some((r) => r.username === username) ? 'exact' : 'caseless';
  }

  /** Whether another user than `exceptId` holds this email, ignoring case; soft-deleted rows count. */
  async emailTaken(email: string, exceptId?: number): Promise<boolean> {
    let q = this.db.selectFrom('users').select('id').where('email', '!=', '').where(sql<string>`lower(email)`, '=', sql<string>`lower(${email})`);
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    return !!(await q.executeTakeFirst());
  }

  findByAffCode(code: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('aff_code', '=', code).where('deleted_at', 'is', null).executeTakeFirst();
  }

  /** Every row counts, deleted ones too: the unique index on aff_code still holds their codes. */
  async affCodeTaken(code: string): Promise<boolean> {
    return !!(await this.db.selectFrom('users').select('id').where('aff_code', '=', code).executeTakeFirst());
  }

  async maxId(): Promise<number> {
    const r = await this.db.selectFrom('users').select((eb) => eb.fn.max('id').as('m')).executeTakeFirst();
    return Number(r?.m ?? 0);
  }

  /** The user holding an identity at a sign-in provider, cancelled users included (they stay bound). */
  findByIdentity(column: 'github_id' | 'linux_do_id' | 'oidc_id' | 'wechat_id' | 'telegram_id' | 'discord_id', value: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where(column, '=', value).orderBy('id').executeTakeFirst();
  }

  async count(): Promise<number> {
    const r = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** The key is written with every username, so the unique index sees each new name. */
  insert(user: NewUser): Promise<number> {
    return insertReturningId(this.handle.kind, this.db.insertInto('users').values({ ...user, username_key: usernameKey(user.username) }));
  }

  async update(id: number, patch: UserUpdate): Promise<void> {
    const set = typeof patch.username === 'string' ? { ...patch, username_key: usernameKey(patch.username) } : patch;
    await this.db.updateTable('users').set(set).where('id', '=', id).execute();
    this.onWrite?.(id);
  }

  async hardDelete(id: number): Promise<void> {
    await this.db.deleteFrom('users').where('id', '=', id).execute();
    this.onWrite?.(id);
  }

  async search(q: UserSearch): Promise<{ items: UserRow[]; total: number }> {
    let base = this.db.selectFrom('users');
    const kw = q.keyword?.trim();
    if (kw) {
      const like = `%${kw}%`;
      base = base.where((eb) => {
        const ors = [eb('username', 'like', like), eb('email', 'like', like), eb('display_name', 'like', like)];
        // Digits are also tried as an id, but only ones an id column can hold (PostgreSQL errors beyond).
        if (/^\d+$/.test(kw) && Number.isSafeInteger(Number(kw))) ors.push(eb('id', '=', Number(kw)));
        return eb.or(ors);
      });
    }
    if (q.group?.trim()) base = base.where('group', '=', q.group.trim());
    const [items, total] = await Promise.all([
      base.selectAll().orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(total.n) };
  }
}
