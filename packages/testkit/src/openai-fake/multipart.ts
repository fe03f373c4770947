/**
 * A minimal multipart/form-data parser (RFC 7578) for the audio upload endpoints. It holds the
 * whole body in memory, which is fine for test uploads and keeps the testkit dependency-free.
 */

export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface ParsedMultipart {
  fields: Record<string, string>;
  files: MultipartFile[];
}

/** The boundary of a `multipart/form-data; boundary=...` Content-Type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/iu.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/iu.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}

function headerParam(header: string, name: string): string | undefined {
  // Quoted values may contain ';' (file names), so match quoted strings first.
  const match = new RegExp(`;\\s*${name}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'iu').exec(header);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/gu, '$1') : match[2];
}

/** Parses a multipart body; throws on a body without the opening boundary. */
export function parseMultipart(body: Buffer, boundary: string): ParsedMultipart {
  const delimiter = Buffer.from(`--${boundary}`);
  const result: ParsedMultipart = { fields: {}, files: [] };
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new Error('multipart body has no boundary');
  for (;;) {
    pos += delimiter.length;
    // "--" right after a delimiter marks the closing boundary.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break;
    const headerStart = body.indexOf('\r\n', pos) + 2;
    const headerEnd = body.indexOf('\r\n\r\n', headerStart);
    if (headerStart < 2 || headerEnd < 0) throw new Error('multipart part has no header end');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw new Error('multipart body has no closing boundary');
    const headers = body.subarray(headerStart, headerEnd).toString('utf8').split('\r\n');
    const data = body.subarray(headerEnd + 4, next);
    let disposition = '';
    let contentType = 'text/plain';
    for (const line of headers) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-disposition') disposition = value;
      if (name === 'content-type') contentType = value;
    }
    const field = headerParam(disposition, 'name') ?? '';
    const filename = headerParam(disposition, 'filename');
    if (filename !== undefined) {
      result.files.push({ field, filename, contentType, data: Buffer.from(data) });
    } else {
      result.fields[field] = data.toString('utf8');
    }
    pos = next + 2;
  }
  return result;
}
