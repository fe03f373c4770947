import { createHash, createHmac } from 'node:crypto';
import { safeEqual } from '../../crypto/safe-equal.js';
import { AppError } from '../../http/errors.js';

/** Telegram's rule (core.telegram.org/widgets/login): reject data older than this. */
export const TELEGRAM_MAX_AGE_SEC = 24 * 3600;

/**
 * The Telegram user id of a login-widget payload, after the widget's check: the hex HMAC-SHA256,
 * keyed with SHA-256 of the bot token, over every signed field as sorted `key=value` lines joined by
 * `\n`. `lang` is the console's own addition, not Telegram's, so it is not part of the signed data.
 * The reference skipped the age check; a captured payload would then sign in forever.
 */
export function verifyTelegram(fields: Record<string, string>, botToken: string, now = Math.floor(Date.now() / 1000)): string {
  const hash = fields.hash ?? '';
  if (!/^[0-9a-f]{64}$/i.test(hash) || !fields.id || !botToken) throw new AppError('TELEGRAM_HASH_INVALID');
  const check = Object.keys(fields)
    .filter((k) => k !== 'hash' && k !== 'lang')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHash('sha256').update(botToken).digest();
  const expected = createHmac('sha256', secret).update(check).digest();
  if (!safeEqual(Buffer.from(hash, 'hex'), expected)) throw new AppError('TELEGRAM_HASH_INVALID');
  const authDate = Number(fields.auth_date);
  // A signed date from the future is as suspect as an old one (a minute of clock skew allowed).
  if (!Number.isInteger(authDate) || now - authDate > TELEGRAM_MAX_AGE_SEC || authDate - now > 60) throw new AppError('TELEGRAM_AUTH_EXPIRED');
  return fields.id;
}
