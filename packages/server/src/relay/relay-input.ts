import type { WireFormat } from './formats/types.js';
import type { RelayMode } from './adapters/types.js';

/* The parsed inbound request's shape and the multipart readers, shared by request-parse and image-upload. */

/** What a relay route serves: the operation (billing rules) and the wire format the caller speaks. */
export interface RelayRoute {
  mode: RelayMode;
  format: WireFormat;
  /** The route decides streaming (Gemini's `:streamGenerateContent`), not the body. */
  stream?: boolean;
  /** A Gemini stream without `alt=sse`: a JSON array. */
  jsonArray?: boolean;
}

/** The inbound request, parsed once: what the pipeline needs to know, plus the bytes to forward. */
export interface RelayInput {
  mode: RelayMode;
  /** The caller's wire format: replies and errors are written in it. */
  format: WireFormat;
  model: string;
  stream: boolean;
  /** The client asked for `stream_options.include_usage`. */
  clientWantsUsage: boolean;
  /** Parsed JSON body (JSON modes); forwarded as `raw` unless something had to change. */
  body: Record<string, unknown> | null;
  raw: Buffer;
  contentType: string;
  maxTokens: number | undefined;
  /** multipart: where the `model` value sits in `raw`, for model mapping. */
  multipartModel?: { start: number; end: number };
  /** multipart: the transcription `response_format`. */
  responseFormat?: string;
  image?: { size: string; quality: string; n: number };
  /** A Gemini caller's stream without `alt=sse`: written as one JSON array. */
  jsonArray?: boolean;
}

/** Finds a text field of a multipart/form-data body without copying the (possibly large) file parts. */
export function multipartField(raw: Buffer, boundary: string, name: string): { value: string; start: number; end: number } | undefined {
  const marker = Buffer.from(`name="${name}"`);
  let from = 0;
  for (;;) {
    const at = raw.indexOf(marker, from);
    if (at < 0) return undefined;
    const headerEnd = raw.indexOf('\r\n\r\n', at);
    if (headerEnd < 0) return undefined;
    const start = headerEnd + 4;
    const end = raw.indexOf(`\r\n--${boundary}`, start);
    if (end < 0) return undefined;
    // The marker must sit in a part's header (before its blank line), not inside file data.
    const lineStart = raw.lastIndexOf('\r\n', at);
    if (raw.subarray(lineStart + 2, at).toString('latin1').toLowerCase().startsWith('content-disposition')) {
      return { value: raw.subarray(start, end).toString('utf8'), start, end };
    }
    from = at + marker.length;
  }
}

export function boundaryOf(contentType: string): string | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2])!.trim() : undefined;
}
