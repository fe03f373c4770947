import { Role } from '@modelgate/shared';
import type { Db } from '../../db/client.js';
import { verifyPassword } from './password.js';
import { DEFAULT_ROOT_PASSWORD } from './users.service.js';

/** The active super admins whose password is still the seeded default (start-up warns about them). */
export async function rootsWithDefaultPassword(handle: Db): Promise<string[]> {
  const rows = await handle.db.selectFrom('users').select(['username', 'password']).where('role', '=', Role.Root).where('deleted_at', 'is', null).execute();
  const weak: string[] = [];
  for (const r of rows) if (r.password && (await verifyPassword(DEFAULT_ROOT_PASSWORD, r.password))) weak.push(r.username);
  return weak;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * The start-up warning while a super admin still has the default password: loud when the server
 * listens beyond loopback (anyone who reaches the port can sign in as root), a reminder otherwise.
 * Undefined when there is nothing to warn about.
 */
export function defaultRootPasswordWarning(usernames: readonly string[], host: string, port: number): string | undefined {
  if (!usernames.length) return undefined;
  const who = usernames.map((u) => `"${u}"`).join(', ');
  const change = `Sign in at http://localhost:${port} and change it in Personal settings`;
  if (LOOPBACK.has(host)) return `the super admin ${who} still has the default password ${DEFAULT_ROOT_PASSWORD}. ${change}.`;
  return (
    `SECURITY: the super admin ${who} still has the default password ${DEFAULT_ROOT_PASSWORD} and ModelGate listens on ${host}:${port}, ` +
    `so anyone who can reach this port can sign in as root and read every channel key. ${change} now, ` +
    'or start with HOST=127.0.0.1 until you have (or set INITIAL_ROOT_PASSWORD before the first start).'
  );
}
