/**
 * Just enough MIME to read what a mailer sends: headers (with RFC 2047 encoded words),
 * multipart bodies, and base64 / quoted-printable transfer encodings.
 */
export interface ParsedMail {
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
}

function splitHeadBody(raw: string): [string, string] {
  const i = raw.search(/\r?\n\r?\n/);
  if (i < 0) return [raw, ''];
  const sep = raw.slice(i).match(/^\r?\n\r?\n/)![0];
  return [raw.slice(0, i), raw.slice(i + sep.length)];
}

function parseHeaders(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const c = line.indexOf(':');
    if (c > 0) out[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
  }
  return out;
}

export function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const soft = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const ch = soft[i]!;
    if (ch === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** `=?UTF-8?B?…?=` and `=?UTF-8?Q?…?=` words in a header value. */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

function walk(raw: string, into: { text: string; html: string }): Record<string, string> {
  const [head, body] = splitHeadBody(raw);
  const headers = parseHeaders(head);
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      walk(part.replace(/^\r?\n/, ''), into);
    }
  } else if (/^text\/html/i.test(type)) {
    into.html += decodeBody(body, headers['content-transfer-encoding']);
  } else if (/^text\//i.test(type)) {
    into.text += decodeBody(body, headers['content-transfer-encoding']);
  }
  return headers;
}

export function parseMail(raw: string): ParsedMail {
  const parts = { text: '', html: '' };
  const headers = walk(raw, parts);
  return { headers, subject: decodeEncodedWords(headers.subject ?? ''), text: parts.text, html: parts.html };
}
