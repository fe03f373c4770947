import { createHash } from 'node:crypto';

/**
 * The gateway's MD5 signature: every field but `sign`, `sign_type` and empty ones, sorted by name,
 * `k=v` joined with `&`, the merchant key appended, lower-case hex. Written here on its own (not
 * imported from the server), so the fake checks the merchant's implementation instead of echoing it.
 */
export function epayMd5(fields: Readonly<Record<string, string>>, key: string): string {
  const names = Object.keys(fields)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && fields[name] !== '')
    .sort();
  const text = names.map((name) => `${name}=${fields[name]}`).join('&');
  return createHash('md5').update(`${text}${key}`, 'utf8').digest('hex');
}

export function signFields(fields: Record<string, string>, key: string): Record<string, string> {
  return { ...fields, sign: epayMd5(fields, key), sign_type: 'MD5' };
}
