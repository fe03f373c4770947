import type { LogEntry } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { LogEntry };

export const usageKeys = { byKey: (key: string) => ['log', 'token', key] as const };

/** `GET /api/log/token?key=`: the key is the credential, so this works signed out. */
export async function fetchUsageByKey(key: string): Promise<LogEntry[]> {
  const rows = await call('GET /api/log/token', { query: { key } });
  return Array.isArray(rows) ? rows : [];
}
