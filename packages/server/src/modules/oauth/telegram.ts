import { createHash, createHmac } from 'node:crypto';
import type { SharedStore } from '../../cluster/shared-store.js';
import { safeEqual } from '../../crypto/safe-equal.js';
import { AppError } from '../../http/errors.js';

/**
 * Telegram's rule (core.telegram.org/widgets/login): reject outdated data. Its docs name no
 * figure; the console's widget (callback form) hands the payload over the moment Telegram signs it,
 * so ten minutes — as long as an OAuth state lives — is ample and bounds what a captured, unused
 * payload is worth.
 */
export const TELEGRAM_MAX_AGE_SEC = 10 * 60;
/** A signed date this far in the future is still taken (clock skew between Telegram and us). */
const FUTURE_SKEW_SEC = 60;

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
  // A signed date from the future is as suspect as an old one.
  if (!Number.isInteger(authDate) || now - authDate > TELEGRAM_MAX_AGE_SEC || authDate - now > FUTURE_SKEW_SEC) {
    throw new AppError('TELEGRAM_AUTH_EXPIRED', 200, undefined, { minutes: TELEGRAM_MAX_AGE_SEC / 60 });
  }
  return fields.id;
}

/**
 * Each payload signs in (or binds) once. The payload is a bearer credential for its whole window —
 * it travels in a query string, so proxies, browser history and logs may keep it — and the
 * signature alone cannot tell its first use from a replay. Its hash is claimed in the shared store
 * (Redis, else the database), so a replay to another node is refused too; the claim lasts until the
 * payload would be refused as outdated anyway, and one more skew's worth for the nodes' clocks.
 */
export class TelegramPayloads {
  constructor(private readonly store: SharedStore) {}

  /** The Telegram user id of a payload that verifies and was never accepted before, spending it. */
  async accept(fields: Record<string, string>, botToken: string, now = Math.floor(Date.now() / 1000)): Promise<string> {
    const id = verifyTelegram(fields, botToken, now);
    const authDate = Number(fields.auth_date);
    const ttlSec = authDate + TELEGRAM_MAX_AGE_SEC + FUTURE_SKEW_SEC - now;
    // Lower case: the hex check takes either case, and a re-cased hash is the same payload.
    const claimed = await this.store.claim(`telegram:${fields.hash!.toLowerCase()}`, id, Math.max(1, ttlSec) * 1000);
    if (!claimed) throw new AppError('TELEGRAM_PAYLOAD_USED');
    return id;
  }
}
