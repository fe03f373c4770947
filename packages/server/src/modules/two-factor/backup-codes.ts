import { createHash, randomInt } from 'node:crypto';

/** How many backup codes an enrolment (or a regeneration) hands out. */
export const BACKUP_CODE_COUNT = 10;

/** No 0/o, 1/l/i: a code copied by hand from paper reads back the same. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten codes of ten characters (`abcde-fgh23`, about 49 bits each): the throttle makes guessing one hopeless. */
export function newBackupCodes(): string[] {
  const one = () => Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  const codes = new Set<string>();
  while (codes.size < BACKUP_CODE_COUNT) {
    const c = one();
    codes.add(`${c.slice(0, 5)}-${c.slice(5)}`);
  }
  return [...codes];
}

/** A code as typed, in the form it was hashed in: case, spaces and the dash do not matter. */
export function normaliseBackupCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** What is stored: sha256 of the normalised code (hex). The codes are random, so no salt is needed. */
export function hashBackupCode(code: string): string {
  return createHash('sha256').update(normaliseBackupCode(code)).digest('hex');
}
