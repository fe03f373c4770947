import { createHash, createHmac } from 'node:crypto';

/** The fields Telegram's login widget hands the site (https://core.telegram.org/widgets/login). */
export interface TelegramUser {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
}

export interface TelegramPayloadOptions {
  /** Seconds since the epoch; default now. */
  authDate?: number;
  /** Sign with another bot's token (a forged payload). */
  forgeWith?: string;
  /** Change a field after signing (a tampered payload). */
  tamper?: Partial<Record<keyof TelegramUser, string | number>>;
}

/**
 * The data-check string and hash as the widget documents them: every received field except `hash`,
 * as `key=value` lines sorted by key and joined by `\n`, HMAC-SHA256 with SHA-256(bot token) as key.
 */
export function telegramHash(fields: Record<string, string>, botToken: string): string {
  const check = Object.keys(fields)
    .filter((k) => k !== 'hash')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHash('sha256').update(botToken).digest();
  return createHmac('sha256', secret).update(check).digest('hex');
}

/** A login-widget payload (all values as strings, `hash` included), valid unless the options spoil it. */
export function telegramLoginPayload(botToken: string, user: TelegramUser, opts: TelegramPayloadOptions = {}): Record<string, string> {
  const fields: Record<string, string> = { auth_date: String(opts.authDate ?? Math.floor(Date.now() / 1000)) };
  for (const [k, v] of Object.entries(user)) if (v !== undefined && v !== '') fields[k] = String(v);
  fields.hash = telegramHash(fields, opts.forgeWith ?? botToken);
  for (const [k, v] of Object.entries(opts.tamper ?? {})) fields[k] = String(v);
  return fields;
}
