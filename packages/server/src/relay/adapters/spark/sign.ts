import { createHmac } from 'node:crypto';

/** `APPID|APISecret|APIKey`, each part non-empty, or undefined. */
export function sparkKeyParts(key: string): { appId: string; apiSecret: string; apiKey: string } | undefined {
  const parts = key.trim().split('|').map((p) => p.trim());
  if (parts.length !== 3 || !parts.every(Boolean)) return undefined;
  return { appId: parts[0]!, apiSecret: parts[1]!, apiKey: parts[2]! };
}

/** The string iFlytek signs: host, date and the request line of the upgrade GET. */
export function sparkStringToSign(host: string, date: string, path: string): string {
  return `host: ${host}\ndate: ${date}\nGET ${path} HTTP/1.1`;
}

/**
 * The `authorization` query value (iFlytek's WebSocket auth, https://www.xfyun.cn/doc/spark/Web.html):
 * base64 of `api_key="…", algorithm="hmac-sha256", headers="host date request-line", signature="…"`
 * where the signature is base64(HMAC-SHA256(APISecret, string to sign)).
 */
export function sparkAuthorization(o: { apiKey: string; apiSecret: string; host: string; date: string; path: string }): string {
  const signature = createHmac('sha256', o.apiSecret).update(sparkStringToSign(o.host, o.date, o.path)).digest('base64');
  const origin = `api_key="${o.apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`;
  return Buffer.from(origin).toString('base64');
}

/**
 * The signed URL of one connection: `{ws base}{path}?authorization=…&date=…&host=…`, the date in
 * RFC 1123 GMT as the docs show it. `base` may be written http(s) in the channel form (ws(s) is used).
 */
export function sparkSignedUrl(base: string, path: string, key: { apiKey: string; apiSecret: string }, now = new Date()): string {
  const u = new URL(base.replace(/\/+$/, '') + path);
  if (u.protocol === 'https:') u.protocol = 'wss:';
  else if (u.protocol === 'http:') u.protocol = 'ws:';
  const date = now.toUTCString();
  const authorization = sparkAuthorization({ ...key, host: u.host, date, path: u.pathname });
  // Form encoding (space → `+`, `,` → `%2C`, `:` → `%3A`), keys in sorted order, as iFlytek's samples build it.
  const q = new URLSearchParams([
    ['authorization', authorization],
    ['date', date],
    ['host', u.host],
  ]);
  return `${u.origin}${u.pathname}?${q.toString()}`;
}
