import { fillMessage, serverMessage, type Lang, type ServerMessageCode } from '@modelgate/shared';
import { jsonShapeProblem, RELAY_JSON_LIMITS } from '../../http/json-shape.js';
import { multipartParts } from '../image-upload.js';
import { boundaryOf, multipartField } from '../relay-input.js';
import { RelayError } from '../relay-error.js';
import type { VideoRequest } from './video-types.js';

/** A video request as the caller wrote it, before a channel is chosen (no upstream model yet). */
export type VideoAsk = Omit<VideoRequest, 'upstreamModel'>;

/** OpenAI's limit on a Videos prompt (CreateVideoJsonBody.prompt maxLength); no provider takes more. */
export const VIDEO_PROMPT_MAX = 32_000;
/** Reference images per request, and the size of each one sent inline. */
export const VIDEO_IMAGES_MAX = 4;
export const VIDEO_IMAGE_MAX_MB = 10;
const IMAGE_MAX_BYTES = VIDEO_IMAGE_MAX_MB * 1024 * 1024;

/** A caller error of the video surfaces, worded from the catalogue. */
export function videoError(lang: Lang, status: number, code: ServerMessageCode, vars: Record<string, string | number> = {}, param: string | null = null): RelayError {
  return new RelayError(status, 'invalid_request_error', code.toLowerCase(), fillMessage(serverMessage(code, lang), vars), param);
}

const fieldError = (lang: Lang, field: string, reason: string) => videoError(lang, 400, 'VIDEO_FIELD_INVALID', { field, reason }, field);

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** A positive whole number given as a number or a numeric string ("8"); undefined when absent. */
function seconds(lang: Lang, field: string, v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n > 600) throw fieldError(lang, field, 'a number of seconds between 1 and 600');
  return n;
}

function seed(lang: Lang, v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw fieldError(lang, 'seed', 'a whole number ≥ 0');
  return v;
}

/** An http(s) URL or an inline base64 image, checked for shape and size (the upstream fetches the URL itself). */
function image(lang: Lang, v: unknown, field: string): string {
  const bad = () => videoError(lang, 400, 'VIDEO_IMAGE_INVALID', { max: VIDEO_IMAGE_MAX_MB }, field);
  if (typeof v !== 'string') throw bad();
  const s = v.trim();
  if (s.startsWith('data:')) {
    const m = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=\s]+)$/i.exec(s);
    if (!m || (m[1]!.length * 3) / 4 > IMAGE_MAX_BYTES) throw bad();
    return s;
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw bad();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || s.length > 4096) throw bad();
  return s;
}

function prompt(lang: Lang, v: unknown): string {
  if (typeof v !== 'string' || !v.trim()) throw videoError(lang, 400, 'VIDEO_PROMPT_REQUIRED', {}, 'prompt');
  if (v.length > VIDEO_PROMPT_MAX) throw videoError(lang, 400, 'VIDEO_PROMPT_TOO_LONG', { max: VIDEO_PROMPT_MAX }, 'prompt');
  return v;
}

function images(lang: Lang, list: unknown[]): string[] {
  if (list.length > VIDEO_IMAGES_MAX) throw fieldError(lang, 'images', `at most ${VIDEO_IMAGES_MAX}`);
  return list.map((v, i) => image(lang, v, `images[${i}]`));
}

function object(lang: Lang, raw: Buffer): Record<string, unknown> {
  if (jsonShapeProblem(raw, RELAY_JSON_LIMITS)) throw videoError(lang, 400, 'VIDEO_BODY_INVALID');
  let v: unknown;
  try {
    v = JSON.parse(raw.toString('utf8'));
  } catch {
    throw videoError(lang, 400, 'VIDEO_BODY_INVALID');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw videoError(lang, 400, 'VIDEO_BODY_INVALID');
  return v as Record<string, unknown>;
}

/**
 * The reference's unified body (`POST /v1/video/generations`): `model`, `prompt`, `image` or
 * `images`, `duration` (or `seconds`), `size` (or `width` × `height`), `seed`, `negative_prompt`,
 * and `metadata`: the provider's own fields, passed through under the ones the gateway bills by.
 */
export function parseUnifiedBody(raw: Buffer, lang: Lang): VideoAsk {
  const b = object(lang, raw);
  const model = str(b.model);
  if (!model) throw videoError(lang, 400, 'VIDEO_MODEL_REQUIRED', {}, 'model');
  const meta = b.metadata;
  if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta))) throw fieldError(lang, 'metadata', 'an object');
  const list: unknown[] = [];
  if (b.image !== undefined && b.image !== '') list.push(b.image);
  if (Array.isArray(b.images)) list.push(...b.images);
  else if (b.images !== undefined) throw fieldError(lang, 'images', 'a list of image URLs');
  if (typeof b.input_reference === 'string' && b.input_reference) list.push(b.input_reference);
  const width = b.width;
  const height = b.height;
  let size = str(b.size) ?? str(b.resolution);
  if (!size && typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0) size = `${Math.trunc(width)}x${Math.trunc(height)}`;
  return {
    model,
    prompt: prompt(lang, b.prompt),
    images: images(lang, list),
    seconds: seconds(lang, 'duration', b.duration ?? b.seconds),
    size,
    seed: seed(lang, b.seed),
    negativePrompt: str(b.negative_prompt),
    extras: meta ? { ...(meta as Record<string, unknown>) } : {},
  };
}

const SORA_DEFAULT_MODEL = 'sora-2';

/** A multipart image part as a data URL (OpenAI SDKs upload `input_reference` as a file). */
function filePart(lang: Lang, raw: Buffer, part: { start: number; size: number; contentType: string }): string {
  const type = part.contentType.split(';')[0]!.trim();
  if (!/^image\/[a-z0-9.+-]+$/.test(type) || part.size === 0 || part.size > IMAGE_MAX_BYTES) throw videoError(lang, 400, 'VIDEO_IMAGE_INVALID', { max: VIDEO_IMAGE_MAX_MB }, 'input_reference');
  return `data:${type};base64,${raw.subarray(part.start, part.start + part.size).toString('base64')}`;
}

/**
 * OpenAI's create body (`POST /v1/videos`), JSON or multipart as the SDKs send it: `prompt`,
 * `model` (default sora-2), `seconds` ("4"), `size` ("1280x720") and `input_reference` (a file,
 * or `{image_url}`). Sizes beyond Sora's four pass for other providers' models.
 */
export function parseOpenAIBody(raw: Buffer, contentType: string, lang: Lang): VideoAsk {
  const ct = contentType.toLowerCase();
  let fields: Record<string, unknown>;
  const list: string[] = [];
  if (ct.startsWith('multipart/form-data')) {
    const boundary = boundaryOf(contentType);
    const parts = boundary ? multipartParts(raw, boundary) : undefined;
    if (!boundary || !parts) throw videoError(lang, 400, 'VIDEO_BODY_INVALID');
    fields = {};
    for (const name of ['model', 'prompt', 'seconds', 'size']) {
      const f = multipartField(raw, boundary, name);
      if (f) fields[name] = f.value;
    }
    const refs = parts.filter((p) => p.name === 'input_reference');
    if (refs.length > 1) throw fieldError(lang, 'input_reference', 'one file');
    const ref = refs[0];
    if (ref?.filename !== undefined) list.push(filePart(lang, raw, ref));
    else if (ref) fields.input_reference = multipartField(raw, boundary, 'input_reference')?.value;
  } else {
    fields = object(lang, raw);
  }
  const refField = fields.input_reference;
  if (refField !== undefined && refField !== null && refField !== '') {
    const url = typeof refField === 'object' && !Array.isArray(refField) ? (refField as { image_url?: unknown }).image_url : refField;
    if ((refField as { file_id?: unknown }).file_id !== undefined) throw fieldError(lang, 'input_reference', 'file_id is not supported; send image_url or the file');
    list.push(image(lang, url, 'input_reference'));
  }
  const model = fields.model === undefined || fields.model === '' ? SORA_DEFAULT_MODEL : str(fields.model);
  if (!model) throw videoError(lang, 400, 'VIDEO_MODEL_REQUIRED', {}, 'model');
  if (fields.size !== undefined && typeof fields.size !== 'string') throw fieldError(lang, 'size', 'a size such as 1280x720');
  return {
    model,
    prompt: prompt(lang, fields.prompt),
    images: list,
    seconds: seconds(lang, 'seconds', fields.seconds),
    size: str(fields.size),
    extras: {},
  };
}
