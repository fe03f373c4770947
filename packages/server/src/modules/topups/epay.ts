import { createHash } from 'node:crypto';
import { safeEqual } from '../../crypto/safe-equal.js';

/**
 * The Epay ("易支付") signature, as gateways of that family check and produce it: the parameters
 * without `sign`, `sign_type` and empty values, sorted by key, joined as `k=v&k=v`, the merchant
 * key appended, MD5 in lower-case hex. Values are signed as sent (not URL-encoded).
 */
export function epaySign(params: Readonly<Record<string, string>>, key: string): string {
  const text = Object.keys(params)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return createHash('md5').update(text + key, 'utf8').digest('hex');
}

/** True when `params.sign` is the signature of the other parameters under `key` (compared in constant time). */
export function epayVerify(params: Readonly<Record<string, string>>, key: string): boolean {
  const given = (params.sign ?? '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(given) || !key) return false;
  return safeEqual(given, epaySign(params, key));
}

/** The gateway's payment type for the console's method: `zfb` Alipay, `wx` WeChat Pay (also their own names). */
export function epayType(method: string | undefined): 'alipay' | 'wxpay' | null {
  switch (method) {
    case 'zfb':
    case 'alipay':
      return 'alipay';
    case 'wx':
    case 'wxpay':
      return 'wxpay';
    default:
      return null;
  }
}

/**
 * A notification's fields as strings; null when one is not a single string (a repeated query key,
 * a nested form field), which no gateway sends and no signature could cover.
 */
export function notifyFields(raw: Readonly<Record<string, unknown>>): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string') return null;
    out[k] = v;
  }
  return out;
}
