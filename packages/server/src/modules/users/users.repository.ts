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

  /** Login accepts a username or an email. */
  findForLogin(name: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('username', '=', name), eb.and([eb('email', '=', name), eb('email', '!=', '')])]))
      .orderBy('id')
      .executeTakeFirst();
  }

  /** Includes soft-deleted rows: a cancelled username or email stays taken. */
  async usernameTaken(username: string): Promise<boolean> {
    return !!(await this.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst());
  }

  async emailTaken(email: string): Promise<boolean> {
    return !!(await this.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst());
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
  findByIdentity(column: 'github_id' | 'linux_do_id' | 'oidc_id' | 'wechat_id' | 'telegram_id', value: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where(column, '=', value).orderBy('id').executeTakeFirst();
  }

  async count(): Promise<number> {
    const r = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  insert(user: NewUser): Promise<number> {
    return insertReturningId(this.handle.kind, this.db.insertInto('users').values(user));
  }

  async update(id: number, patch: UserUpdate): Promise<void> {
    await this.db.updateTable('users').set(patch).where('id', '=', id).execute();
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
