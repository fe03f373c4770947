import { describe, expect, it } from 'vitest';
import { aUser } from '../../test/fixtures';
import { applyManageResult, isCancelled, type User } from './api';

const base: User = aUser(2, { username: 'bob', display_name: 'Bob' });

describe('applyManageResult', () => {
  it('takes the status and role the server returned', () => {
    expect(applyManageResult(base, 'disable', { status: 2, role: 1 })).toMatchObject({ status: 2, role: 1 });
    expect(applyManageResult(base, 'promote', { status: 1, role: 10 })).toMatchObject({ status: 1, role: 10 });
  });
  it('marks a deleted user cancelled', () => {
    const row = applyManageResult(base, 'delete', null, new Date('2030-01-01T00:00:00Z'));
    expect(row.DeletedAt).toBe('2030-01-01T00:00:00.000Z');
    expect(isCancelled(row)).toBe(true);
  });
  it('keeps the old values when the server omitted them', () => {
    expect(applyManageResult(base, 'enable', {})).toMatchObject({ status: 1, role: 1 });
  });
});

describe('isCancelled', () => {
  it('is false for null and for a missing key', () => {
    expect(isCancelled({ DeletedAt: null })).toBe(false);
    expect(isCancelled({})).toBe(false);
  });
});
