import { AUDIT_MASK, escapeAuditText, isSecretAuditField, maskAuditFields } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { auditText, CHANGES_MAX, DETAILS_MAX, detailsJson, diff, requestFields, resultOf, VALUE_MAX } from './audit-entry.js';

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

describe('audit entries: control and bidi characters', () => {
  it('escapes C0, DEL, C1 and every bidi formatting character, and nothing else', () => {
    const unsafe = [0x00, 0x07, 0x09, 0x0a, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const c of unsafe) expect(escapeAuditText(`a${String.fromCharCode(c)}b`)).toBe(`a\\u{${c.toString(16).toUpperCase().padStart(4, '0')}}b`);
    const safe = 'plain ASCII \\ {} 中文 é \u00a0 \u200d \u2028 😀';
    expect(escapeAuditText(safe)).toBe(safe);
    expect(escapeAuditText('\u202Eevil\u202C')).toBe('\\u{202E}evil\\u{202C}');
  });

  it('clips escaped text to the width, never inside an escape', () => {
    expect(auditText('ab\u202Ecd', 64)).toBe('ab\\u{202E}cd');
    const name = `${'n'.repeat(60)}\u202E\u202Ezz`;
    expect(auditText(name, 64)).toBe(`${'n'.repeat(60)}…`);
    const clipped = auditText(`${'n'.repeat(50)}\u202Exyz${'m'.repeat(20)}`, 64);
    expect(clipped).toBe(`${'n'.repeat(50)}\\u{202E}xyzmm…`);
    expect([...clipped]).toHaveLength(64);
    // A user agent of bell characters: 31 whole escapes fit in 255, then the ellipsis.
    expect(auditText('\u0007'.repeat(100), 255)).toBe(`${'\\u{0007}'.repeat(31)}…`);
  });

  it('escapes request values, field names, object values, changes and results', () => {
    const r = requestFields('channel', { body: { name: 'x\u202Ey', ['f\u2066']: 1, setting: { a: '\u202E\u0085' }, ids: ['\u0007'] } });
    expect(r).toEqual({ name: 'x\\u{202E}y', 'f\\u{2066}': 1, setting: '{"a":"\\u{202E}\\u{0085}"}', ids: ['\\u{0007}'] });
    expect(diff('option', { 'ModelRatio.m\u202E': 1 }, { 'ModelRatio.m\u202E': 2 }).changes).toEqual([{ field: 'ModelRatio.m\\u{202E}', before: 1, after: 2 }]);
    expect(diff('user', { display_name: 'a\u202E' }, { display_name: 'b' }).changes).toEqual([{ field: 'display_name', before: 'a\\u{202E}', after: 'b' }]);
    expect(resultOf({ ['k\u200f']: 'v\u061c' })).toEqual({ 'k\\u{200F}': 'v\\u{061C}' });
  });
});
