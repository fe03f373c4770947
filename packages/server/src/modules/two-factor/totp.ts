import { generateSecret, generateURI, verify } from 'otplib';

/** RFC 6238 defaults every authenticator app uses: SHA-1, 6 digits, 30-second steps. */
export const TOTP_PERIOD_SEC = 30;

/**
 * How far a code may be from the server's clock, in seconds each way: one step either side, so a
 * phone a little off, or a code typed just as it changed, still works.
 */
const TOLERANCE_SEC = TOTP_PERIOD_SEC;

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), base32 as apps take it. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://totp/…` URI a QR code carries: the site's name as issuer, the username as label. */
export function otpauthUri(issuer: string, label: string, secret: string): string {
  return generateURI({ issuer, label, secret, period: TOTP_PERIOD_SEC });
}

/**
 * The time step `code` belongs to, when it is a valid code for `secret` within the tolerance and
 * from a later step than `afterStep` (the last one accepted); else null. The caller records the
 * step atomically, so the same code (or an older one) is never taken twice.
 */
export async function totpStep(secret: string, code: string, afterStep: number, nowSec: number): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const r = await verify({ secret, token: code, epoch: nowSec, epochTolerance: TOLERANCE_SEC, period: TOTP_PERIOD_SEC, ...(afterStep > 0 ? { afterTimeStep: afterStep } : {}) });
  return r.valid && 'timeStep' in r ? r.timeStep : null;
}
