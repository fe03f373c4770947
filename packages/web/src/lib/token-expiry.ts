import dayjs from './dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';

dayjs.extend(customParseFormat);

export const EXPIRY_FORMAT = 'YYYY-MM-DD HH:mm:ss';
const ACCEPTED_FORMATS = [EXPIRY_FORMAT, 'YYYY-MM-DD HH:mm', 'YYYY-MM-DD'];

export const NEVER_EXPIRES = -1;

export type ExpiryShortcut = 'never' | 'hour' | 'day' | 'month';
export const EXPIRY_SHORTCUTS: ExpiryShortcut[] = ['never', 'hour', 'day', 'month'];

/** Form text → `expired_time`: '' is never (-1), a local date-time is Unix seconds, else null (invalid). */
export function parseExpiry(text: string): number | null {
  const value = text.trim();
  if (value === '' || value === '-1') return NEVER_EXPIRES;
  const parsed = dayjs(value, ACCEPTED_FORMATS, true);
  if (!parsed.isValid()) return null;
  return Math.ceil(parsed.valueOf() / 1000);
}

export function formatExpiry(expiredTime: number | null | undefined): string {
  if (expiredTime === undefined || expiredTime === null || expiredTime === NEVER_EXPIRES) return '';
  return dayjs.unix(expiredTime).format(EXPIRY_FORMAT);
}

/** Spec §9: never, 1 hour, 1 day, 1 month (30 days) from now. */
export function expiryFromShortcut(shortcut: ExpiryShortcut, now: Date = new Date()): string {
  const base = dayjs(now);
  switch (shortcut) {
    case 'never':
      return '';
    case 'hour':
      return base.add(1, 'hour').format(EXPIRY_FORMAT);
    case 'day':
      return base.add(1, 'day').format(EXPIRY_FORMAT);
    case 'month':
      return base.add(30, 'day').format(EXPIRY_FORMAT);
  }
}
