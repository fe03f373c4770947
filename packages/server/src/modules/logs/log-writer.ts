import { LogType } from '@modelgate/shared';
import type { Db } from '../../db/client.js';
import { nowSec } from '../../http/reply.js';

/** Top-up, manage and system rows (consume rows are written by the relay's settlement). */
export async function recordLog(
  handle: Db,
  entry: { userId: number; username?: string; type: (typeof LogType)[keyof typeof LogType]; content: string; quota?: number },
): Promise<void> {
  await handle.db
    .insertInto('logs')
    .values({
      user_id: entry.userId,
      username: entry.username ?? '',
      created_at: nowSec(),
      type: entry.type,
      content: entry.content,
      quota: entry.quota ?? 0,
      other: '{}',
    })
    .execute();
}
