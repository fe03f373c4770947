import { describe, expect, it } from 'vitest';
import { validateRegister } from './validate';

const ok = { username: 'alice', password: 'password1', password2: 'password1', email: '', verification_code: '' };

describe('validateRegister', () => {
  it('accepts a complete form', () => {
    expect(validateRegister(ok, false)).toBeNull();
  });
  it('requires username and password', () => {
    expect(validateRegister({ ...ok, username: ' ' }, false)).toBe('missingFields');
    expect(validateRegister({ ...ok, password: '' }, false)).toBe('missingFields');
  });
  it('enforces the 8-character minimum only (20 is just the placeholder)', () => {
    expect(validateRegister({ ...ok, password: '1234567', password2: '1234567' }, false)).toBe('passwordTooShort');
    const long = 'x'.repeat(40);
    expect(validateRegister({ ...ok, password: long, password2: long }, false)).toBeNull();
  });
  it('refuses a username over 12 characters instead of cutting it', () => {
    expect(validateRegister({ ...ok, username: 'thirteen_char' }, false)).toBe('usernameTooLong');
    expect(validateRegister({ ...ok, username: 'twelve_chars' }, false)).toBeNull();
  });
  it('requires both passwords to match', () => {
    expect(validateRegister({ ...ok, password2: 'password2' }, false)).toBe('passwordMismatch');
  });
  it('requires email and code only when verification is on', () => {
    expect(validateRegister(ok, true)).toBe('missingEmailCode');
    expect(validateRegister({ ...ok, email: 'a@b.c', verification_code: '123456' }, true)).toBeNull();
  });
});
