import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/dialect.js';

export interface PasskeyRecord {
  id: number;
  userId: number;
  /** base64url. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  userHandle: string;
  counter: number;
  transports: string[];
  name: string;
  backedUp: boolean;
  createdAt: number;
  lastUsedAt: number;
}

export type NewPasskey = Omit<PasskeyRecord, 'id' | 'lastUsedAt'>;

/** The unique lookup key of a credential id (see migration 0020 for why not the id itself). */
export function credentialHash(credentialId: string): string {
  return createHash('sha256').update(credentialId).digest('hex');
}

const COLUMNS = ['id', 'user_id', 'credential_id', 'public_key', 'user_handle', 'counter', 'transports', 'name', 'backed_up', 'created_at', 'last_used_at'] as const;

type Row = { [K in (typeof COLUMNS)[number]]: unknown };

function record(r: Row): PasskeyRecord {
  return {
    id: Number(r.id),
    userId: Number(r.user_id),
    credentialId: String(r.credential_id),
    publicKey: String(r.public_key),
    userHandle: String(r.user_handle ?? ''),
    counter: Number(r.counter),
    transports: String(r.transports ?? '')
      .split(',')
      .filter(Boolean),
    name: String(r.name ?? ''),
    backedUp: Number(r.backed_up) === 1,
    createdAt: Number(r.created_at),
    lastUsedAt: Number(r.last_used_at),
  };
}

/** The `passkeys` table (migration 0020). */
export class PasskeysRepository {
  constructor(private readonly handle: Db) {}

  private get db() {
    return this.handle.db;
  }

  async listByUser(userId: number): Promise<PasskeyRecord[]> {
    const rows = await this.db.selectFrom('passkeys').select(COLUMNS).where('user_id', '=', userId).orderBy('id').execute();
    return rows.map(record);
  }

  async countByUser(userId: number): Promise<number> {
    const r = await this.db
      .selectFrom('passkeys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Passkeys per user for a page of users, in one query (the admin user list). */
  async countByUsers(userIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (userIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('passkeys')
      .select(['user_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('user_id', 'in', [...userIds])
      .groupBy('user_id')
      .execute();
    for (const r of rows) out.set(Number(r.user_id), Number(r.n));
    return out;
  }

  async findByCredential(credentialId: string): Promise<PasskeyRecord | undefined> {
    const r = await this.db.selectFrom('passkeys').select(COLUMNS).where('credential_hash', '=', credentialHash(credentialId)).executeTakeFirst();
    // The hash found it; the id itself must match too.
    return r && String(r.credential_id) === credentialId ? record(r) : undefined;
  }

  /** The WebAuthn user handle the user's passkeys carry, if they have any. */
  async userHandleOf(userId: number): Promise<string | undefined> {
    const r = await this.db.selectFrom('passkeys').select('user_handle').where('user_id', '=', userId).where('user_handle', '!=', '').orderBy('id').executeTakeFirst();
    return r?.user_handle || undefined;
  }

  /** Stores a new passkey; undefined when that credential is registered already (to anyone). */
  async insert(p: NewPasskey): Promise<PasskeyRecord | undefined> {
    try {
      await this.db
        .insertInto('passkeys')
        .values({
          user_id: p.userId,
          credential_hash: credentialHash(p.credentialId),
          credential_id: p.credentialId,
          public_key: p.publicKey,
          user_handle: p.userHandle,
          counter: p.counter,
          transports: p.transports.join(','),
          name: p.name,
          backed_up: p.backedUp ? 1 : 0,
          created_at: p.createdAt,
          last_used_at: 0,
        })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
    return this.findByCredential(p.credentialId);
  }

  async findOwned(userId: number, id: number): Promise<PasskeyRecord | undefined> {
    const r = await this.db.selectFrom('passkeys').select(COLUMNS).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return r && record(r);
  }

  /** Renames one of the user's passkeys: false when it is not theirs (or not there). */
  async rename(userId: number, id: number, name: string): Promise<boolean> {
    const r = await this.db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async remove(userId: number, id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  async removeAll(userId: number): Promise<number> {
    const r = await this.db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /**
   * Records a sign-in's signature counter: raised only if it is above the stored one (0 stays 0
   * for authenticators that keep no counter). One conditional update, so of two sign-ins with
   * the same counter on two nodes only one passes; false for the one that did not.
   */
  async recordUse(id: number, counter: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('passkeys')
      .set({ counter, last_used_at: now })
      .where('id', '=', id)
      .where('counter', counter > 0 ? '<' : '=', counter)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}
