import { createHash, createHmac } from 'node:crypto';

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest();

export interface Tc3Input {
  secretId: string;
  secretKey: string;
  /** The API's service name (`hunyuan`, `cvm`, …): part of the credential scope. */
  service: string;
  host: string;
  /** The signed headers besides `host`, lower-case name → value (`content-type`, `x-tc-action`, …). */
  headers: Record<string, string>;
  /** The final body bytes. */
  body: Buffer | string;
  /** Unix seconds; its UTC date is the scope's date. */
  timestamp: number;
}

/**
 * Tencent Cloud API signature v3, TC3-HMAC-SHA256 (reference §5): a canonical POST `/` request
 * (no query) over the signed headers and the SHA-256 of the body, scoped to
 * `<date>/<service>/tc3_request`, signed with a key derived from `"TC3" + SecretKey`. Returns the
 * `Authorization` header value.
 */
export function tc3Authorization(i: Tc3Input): string {
  const date = new Date(i.timestamp * 1000).toISOString().slice(0, 10);
  const headers: Record<string, string> = { ...Object.fromEntries(Object.entries(i.headers).map(([k, v]) => [k.toLowerCase(), v.trim()])), host: i.host };
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.toLowerCase()}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256(i.body)].join('\n');
  const scope = `${date}/${i.service}/tc3_request`;
  const stringToSign = `TC3-HMAC-SHA256\n${i.timestamp}\n${scope}\n${sha256(canonicalRequest)}`;
  const signingKey = hmac(hmac(hmac(`TC3${i.secretKey}`, date), i.service), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `TC3-HMAC-SHA256 Credential=${i.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
