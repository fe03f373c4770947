import { AUDIT_MASK, isSecretAuditField, maskAuditFields } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { CHANGES_MAX, DETAILS_MAX, detailsJson, diff, requestFields, VALUE_MAX } from './audit-entry.js';

describe('audit entries: masking', () => {
  it('masks passwords and access tokens anywhere, keys of channels and codes, values of secret options', () => {
    expect(isSecretAuditField('user', 'password')).toBe(true);
    expect(isSecretAuditField('user', 'access_token')).toBe(true);
    expect(isSecretAuditField('channel', 'key')).toBe(true);
    expect(isSecretAuditField('redemption', 'key')).toBe(true);
    // An option's `key` is its name; its `value` is secret only when the registry says so.
    expect(isSecretAuditField('option', 'key', { key: 'SMTPToken' })).toBe(false);
    expect(isSecretAuditField('option', 'value', { key: 'SMTPToken' })).toBe(true);
    expect(isSecretAuditField('option', 'value', { key: 'SystemName' })).toBe(false);
    expect(isSecretAuditField('option', 'GitHubClientSecret')).toBe(true);
    expect(isSecretAuditField('option', 'ModelRatio.gpt-4')).toBe(false);
    expect(isSecretAuditField('user', 'quota')).toBe(false);
    expect(maskAuditFields('channel', { name: 'c', key: 'sk-1', base_url: '' })).toEqual({ name: 'c', key: AUDIT_MASK, base_url: '' });
  });

  it('records the request fields masked and clipped, arrays of ids kept', () => {
    const long = 'x'.repeat(VALUE_MAX + 50);
    const r = requestFields('channel', { params: { id: 3 }, body: { key: 'sk-secret', name: long, ids: [1, 2], setting: { a: 1 }, password: '' } });
    expect(r.key).toBe(AUDIT_MASK);
    expect([...(r.name as string)]).toHaveLength(VALUE_MAX);
    expect((r.name as string).endsWith('…')).toBe(true);
    expect(r).toMatchObject({ id: 3, ids: [1, 2], setting: '{"a":1}', password: '' });
  });
});

describe('audit entries: before and after', () => {
  it('lists only what changed, a credential change as masked on both sides', () => {
    expect(diff('user', { quota: 1, role: 1, password: 'h1' }, { quota: 2, role: 1, password: 'h2' }).changes).toEqual([
      { field: 'quota', before: 1, after: 2 },
      { field: 'password', before: AUDIT_MASK, after: AUDIT_MASK },
    ]);
  });

  it('a deleted target keeps its fields as "before"; a new entry of a map has only "after"', () => {
    expect(diff('channel', { name: 'a', key: 'k' }, null).changes).toEqual([
      { field: 'name', before: 'a' },
      { field: 'key', before: AUDIT_MASK },
    ]);
    expect(diff('option', { 'ModelRatio.a': 1 }, { 'ModelRatio.a': 1, 'ModelRatio.b': 2 }).changes).toEqual([{ field: 'ModelRatio.b', after: 2 }]);
  });

  it('caps the number of changes and the size of the stored JSON', () => {
    const before = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`ModelRatio.m${i}`, i]));
    const after = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`ModelRatio.m${i}`, i + 1]));
    const d = diff('option', before, after);
    expect(d.changes).toHaveLength(CHANGES_MAX);
    expect(d.truncated).toBe(500 - CHANGES_MAX);
    const wide = Array.from({ length: CHANGES_MAX }, (_, i) => ({ field: `f${i}`, before: 'b'.repeat(VALUE_MAX), after: 'a'.repeat(VALUE_MAX) }));
    const json = detailsJson({ request: { a: 1 }, changes: wide, changes_truncated: 3 });
    expect(json.length).toBeLessThanOrEqual(DETAILS_MAX);
    const parsed = JSON.parse(json) as { changes: unknown[]; changes_truncated: number };
    expect(parsed.changes.length + parsed.changes_truncated).toBe(CHANGES_MAX + 3);
  });
});
