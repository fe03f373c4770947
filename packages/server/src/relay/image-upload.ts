import { RelayError } from './relay-error.js';
import { boundaryOf, multipartField, type RelayInput, type RelayRoute } from './relay-input.js';

/**
 * `POST /v1/images/edits` and `/v1/images/variations` (multipart/form-data, as OpenAI documents
 * them): checked here without copying the file parts, then forwarded as the caller's bytes.
 *
 * File caps (docs/providers.md): OpenAI takes a dall-e-2 image or mask only as a PNG under 4 MB,
 * so a larger one is refused here before anything is reserved or sent; for other models (gpt-image-1)
 * each file may be up to 50 MB, OpenAI's documented limit. The whole body is also bounded by the
 * relay's upload limit (MAX_AUDIO_BODY_MB), answered 413.
 */
export const DALLE2_FILE_MAX_BYTES = 4 * 1024 * 1024;
export const IMAGE_FILE_MAX_BYTES = 50 * 1024 * 1024;

export interface MultipartPart {
  name: string;
  filename: string | undefined;
  size: number;
  /** Where the part's body starts in the raw form (it is `size` bytes long). */
  start: number;
  /** The part's own Content-Type header, lower case ('' when it has none). */
  contentType: string;
}

function invalid(message: string, param: string | null = null): RelayError {
  return new RelayError(400, 'invalid_request_error', 'invalid_image_request', message, param);
}

function headerParam(header: string, name: string): string | undefined {
  const m = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]*)`, 'i').exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

/** The parts of a multipart body (names, file names and sizes), or undefined when it is not well formed. */
export function multipartParts(raw: Buffer, boundary: string): MultipartPart[] | undefined {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  const parts: MultipartPart[] = [];
  let pos = raw.indexOf(delimiter);
  if (pos < 0) return undefined;
  pos += delimiter.length;
  for (;;) {
    // "--" after a delimiter closes the body.
    if (raw[pos] === 0x2d && raw[pos + 1] === 0x2d) return parts;
    const headerEnd = raw.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) return undefined;
    const end = raw.indexOf(next, headerEnd + 4);
    if (end < 0) return undefined;
    const headers = raw.subarray(pos, headerEnd).toString('utf8').split('\r\n');
    const disposition = headers.find((l) => l.toLowerCase().startsWith('content-disposition'));
    if (!disposition) return undefined;
    const type = headers.find((l) => l.toLowerCase().startsWith('content-type:'));
    parts.push({
      name: headerParam(disposition, 'name') ?? '',
      filename: headerParam(disposition, 'filename'),
      size: end - headerEnd - 4,
      start: headerEnd + 4,
      contentType: type ? type.slice(type.indexOf(':') + 1).trim().toLowerCase() : '',
    });
    pos = end + next.length;
  }
}

/** The number a form field holds, or undefined when absent. */
function intField(raw: Buffer, boundary: string, name: string, min: number, max: number): number | undefined {
  const f = multipartField(raw, boundary, name);
  if (!f || f.value.trim() === '') return undefined;
  const v = Number(f.value.trim());
  if (!Number.isInteger(v) || v < min || v > max) throw invalid(`${name} must be an integer from ${min} to ${max}`, name);
  return v;
}

export function parseImageUploadInput(route: RelayRoute, raw: Buffer, contentType: string): RelayInput {
  const { mode, format } = route;
  const boundary = boundaryOf(contentType);
  if (!contentType.toLowerCase().startsWith('multipart/form-data') || !boundary) throw invalid('the request must be multipart/form-data');
  const parts = multipartParts(raw, boundary);
  if (!parts) throw invalid('the multipart/form-data body is malformed');
  const model = multipartField(raw, boundary, 'model');
  const modelName = model?.value.trim() || 'dall-e-2';
  // The SDKs send one image as `image` and several as `image[]` (gpt-image-1 edits take up to 16).
  const images = parts.filter((p) => (p.name === 'image' || p.name === 'image[]') && p.size > 0);
  if (images.length === 0) throw invalid('image is required: upload it as a file part named "image"', 'image');
  if (mode === 'image-variations' && images.length > 1) throw invalid('variations take exactly one image', 'image');
  const cap = modelName === 'dall-e-2' || mode === 'image-variations' ? DALLE2_FILE_MAX_BYTES : IMAGE_FILE_MAX_BYTES;
  for (const p of parts) {
    if (p.filename !== undefined && p.size > cap) {
      throw invalid(`${p.name} is too large: ${p.size} bytes, at most ${cap} bytes for ${modelName}`, p.name.replace('[]', ''));
    }
  }
  if (mode === 'image-edits' && !multipartField(raw, boundary, 'prompt')?.value.trim()) throw invalid('prompt is required', 'prompt');
  const n = intField(raw, boundary, 'n', 1, 10) ?? 1;
  const size = multipartField(raw, boundary, 'size')?.value.trim() || '1024x1024';
  if (size.includes('×')) throw invalid('size must be written like 1024x1024', 'size');
  const quality = multipartField(raw, boundary, 'quality')?.value.trim() || 'standard';
  return {
    mode,
    format,
    model: modelName,
    stream: false,
    clientWantsUsage: false,
    body: null,
    raw,
    contentType,
    maxTokens: undefined,
    multipartModel: model ? { start: model.start, end: model.end } : undefined,
    image: { size, quality, n },
  };
}
