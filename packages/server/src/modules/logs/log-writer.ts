import { LogType } from '@modelgate/shared';
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';
import { nowSec } from '../../http/reply.js';
import { outboxRow } from './log-outbox.js';

/**
 * Top-up, manage and system rows (consume rows are written by the relay's settlement). `trx`: write
 * it in the caller's transaction, so the row commits with the balance change it describes.
 */
export async function recordLog(
  handle: Db,
  entry: { userId: number; username?: string; type: (typeof LogType)[keyof typeof LogType]; content: string; quota?: number },
  trx?: Transaction<Database>,
): Promise<void> {
  const db: Kysely<Database> = trx ?? handle.db;
  const row = {
    user_id: entry.userId,
    username: entry.username ?? '',
    created_at: nowSec(),
    type: entry.type,
    content: entry.content,
    quota: entry.quota ?? 0,
    other: '{}',
  };
  // A separate log database: the row waits in this one's outbox, committed with the change it describes.
  if (handle.logsElsewhere) await db.insertInto('log_outbox').values(outboxRow('log', row)).execute();
  else await db.insertInto('logs').values(row).execute();
}
