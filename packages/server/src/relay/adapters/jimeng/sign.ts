import { createHash, createHmac } from 'node:crypto';

/** RFC 3986 encoding, as Volcengine's canonical query wants it. */
const encode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** `20250101T000000Z` and `20250101`. */
function stamps(date: Date): { xDate: string; day: string } {
  const xDate = date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { xDate, day: xDate.slice(0, 8) };
}

export interface VolcCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * Volcengine's request signature (its "签名方法" for OpenAPI, HMAC-SHA256): a canonical request of
 * the method, path, sorted query, the signed headers (content-type, host, x-content-sha256, x-date)
 * and the body's SHA-256, signed with a key derived from the secret by date, region, service and
 * `request`. Applied after the body is final; returns the headers to send.
 */
export function volcSign(
  creds: VolcCredentials,
  req: { method: string; url: string; contentType: string; body: string },
  scope: { region: string; service: string },
  date = new Date(),
): Record<string, string> {
  const url = new URL(req.url);
  const { xDate, day } = stamps(date);
  const payloadHash = sha256(req.body);
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [encode(k), encode(v)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headers: Record<string, string> = { 'content-type': req.contentType, host: url.host, 'x-content-sha256': payloadHash, 'x-date': xDate };
  const names = Object.keys(headers).sort();
  const canonical = [req.method.toUpperCase(), url.pathname || '/', query, names.map((n) => `${n}:${headers[n]!.trim()}\n`).join(''), names.join(';'), payloadHash].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/request`;
  const toSign = ['HMAC-SHA256', xDate, credentialScope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(creds.secretAccessKey, day), scope.region), scope.service), 'request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    'x-date': xDate,
    'x-content-sha256': payloadHash,
    authorization: `HMAC-SHA256 Credential=${creds.accessKeyId}/${credentialScope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}
