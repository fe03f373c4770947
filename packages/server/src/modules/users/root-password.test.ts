import { Role } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { useMigratedDb } from '../../test-support/test-db.js';
import { hashPassword } from './password.js';
import { UsersRepository } from './users.repository.js';
import { defaultRootPasswordWarning, rootsWithDefaultPassword } from './root-password.js';

describe('the start-up warning about the default root password', () => {
  const db = useMigratedDb('sqlite');

  it('finds the active super admins that still sign in with 123456, and only them', async () => {
    const repo = new UsersRepository(db());
    const add = async (username: string, password: string, role: number) =>
      repo.insert({ username, password: await hashPassword(password), display_name: username, role, status: 1, quota: 0, aff_code: username, created_at: 1 });
    await add('root', '123456', Role.Root);
    await add('boss', 'a-strong-one-9', Role.Root);
    await add('admin1', '123456', Role.Admin);
    expect(await rootsWithDefaultPassword(db())).toEqual(['root']);
    const gone = await add('old-root', '123456', Role.Root);
    await repo.update(gone, { deleted_at: 2 });
    expect(await rootsWithDefaultPassword(db())).toEqual(['root']);
  });

  it('is loud when the port is reachable from other machines, a reminder on loopback, silent when changed', () => {
    const open = defaultRootPasswordWarning(['root'], '0.0.0.0', 3000)!;
    expect(open).toMatch(/^SECURITY: the super admin "root" still has the default password 123456 and ModelGate listens on 0\.0\.0\.0:3000/);
    expect(open).toContain('HOST=127.0.0.1');
    expect(defaultRootPasswordWarning(['root'], '127.0.0.1', 3000)).toBe('the super admin "root" still has the default password 123456. Sign in at http://localhost:3000 and change it in Personal settings.');
    expect(defaultRootPasswordWarning([], '0.0.0.0', 3000)).toBeUndefined();
  });
});
