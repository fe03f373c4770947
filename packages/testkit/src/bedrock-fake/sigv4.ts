import { createHash, createHmac } from 'node:crypto';

/**
 * SigV4 as AWS documents it, written independently of the signer the server uses so the fake
 * checks it rather than agreeing with it (providers-international §5.2; vectors §5.3).
 */
export interface SigV4Input {
  method: string;
  /** The request path exactly as sent (segments already encoded once). */
  rawPath: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  signedHeaders: string[];
  payloadHash: string;
  amzDate: string;
  region: string;
  service: string;
  secretAccessKey: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 unreserved characters stay, everything else is %XX (upper case), as AWS's UriEncode. */
function uriEncode(s: string): string {
  return Array.from(Buffer.from(s, 'utf8'))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

export function canonicalRequest(i: Omit<SigV4Input, 'amzDate' | 'region' | 'service' | 'secretAccessKey'>): string {
  // Every service but S3: each segment of the (already encoded) path is encoded again.
  const uri = i.rawPath.split('/').map(uriEncode).join('/') || '/';
  const query = [...i.query.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headers = i.signedHeaders
    .map((name) => {
      const v = i.headers[name];
      const value = (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');
      return `${name}:${value}\n`;
    })
    .join('');
  return [i.method, uri, query, headers, i.signedHeaders.join(';'), i.payloadHash].join('\n');
}

export function stringToSign(i: SigV4Input): string {
  const scope = `${i.amzDate.slice(0, 8)}/${i.region}/${i.service}/aws4_request`;
  return ['AWS4-HMAC-SHA256', i.amzDate, scope, sha256(canonicalRequest(i))].join('\n');
}

export function signature(i: SigV4Input): string {
  const kDate = hmac(`AWS4${i.secretAccessKey}`, i.amzDate.slice(0, 8));
  const kSigning = hmac(hmac(hmac(kDate, i.region), i.service), 'aws4_request');
  return createHmac('sha256', kSigning).update(stringToSign(i)).digest('hex');
}

export function payloadHash(body: Buffer): string {
  return sha256(body);
}

/** `AWS4-HMAC-SHA256 Credential=AK/date/region/service/aws4_request, SignedHeaders=a;b, Signature=hex` */
export function parseAuthorization(header: string): { accessKeyId: string; date: string; region: string; service: string; signedHeaders: string[]; signature: string } | undefined {
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(header.trim());
  if (!m) return undefined;
  return { accessKeyId: m[1]!, date: m[2]!, region: m[3]!, service: m[4]!, signedHeaders: m[5]!.split(';'), signature: m[6]! };
}
