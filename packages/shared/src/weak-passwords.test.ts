import { describe, expect, it } from 'vitest';
import { isWeakPassword } from './weak-passwords.js';

describe('isWeakPassword', () => {
  it.each(['12345678', '87654321', 'abcdefgh', 'aaaaaaaa', '12121212', 'password', 'Password123!', 'password123', 'admin2024', 'qwerty#1', '1qaz2wsx', 'iloveyou', 'woaini1314'])(
    'refuses %s',
    (pw) => expect(isWeakPassword(pw)).toBe(true),
  );

  it('refuses the username inside the password', () => {
    expect(isWeakPassword('alice-2024!', 'Alice')).toBe(true);
    expect(isWeakPassword('alice-2024!', 'bob')).toBe(false);
  });

  it.each(['Quiet-Harbor-42', 'Tr1cky-pass-42', 'm7#Lq9vX2p', 'correct horse battery'])('accepts %s', (pw) => expect(isWeakPassword(pw)).toBe(false));
});
