import type { Lang } from '@modelgate/shared';
import { OutboundError } from '../net/guarded-fetch.js';
import { fetchMedia } from '../net/media-fetch.js';
import type { RelayContext } from './relay-context.js';
import { localError, type RelayError } from './relay-error.js';

/** The largest image fetched for an upstream that takes images inline (Gemini's inline request limit is 20 MB). */
export const INLINE_IMAGE_MAX_BYTES = 15 * 1024 * 1024;
/** The whole fetch, redirects included. */
export const INLINE_IMAGE_TIMEOUT_MS = 10_000;

function refused(lang: Lang, field: string, why: string): RelayError {
  return localError(lang, 400, 'RELAY_INVALID_REQUEST', { type: 'invalid_request_error', errorCode: 'invalid_image_url', detail: `${field}: the image URL could not be inlined: ${why}`, param: field });
}

/**
 * Fetches a caller's http(s) image URL for an upstream that reads images inline only, through the
 * download worker when one is set and the one SSRF-guarded client (private addresses refused
 * unless OutboundAllowedRanges lists them),
 * capped in size and time; only `image/*` replies are accepted. Any failure is the caller's 400,
 * naming the field and the reason.
 */
export async function fetchInlineImage(ctx: Pick<RelayContext, 'options'>, lang: Lang, url: string, field: string): Promise<{ mimeType: string; data: string }> {
  let res;
  try {
    res = await fetchMedia(ctx.options, url, { maxBytes: INLINE_IMAGE_MAX_BYTES, timeoutMs: INLINE_IMAGE_TIMEOUT_MS, headers: { accept: 'image/*' } });
  } catch (err) {
    if (err instanceof OutboundError) throw refused(lang, field, err.message);
    throw err;
  }
  if (res.status < 200 || res.status >= 300) throw refused(lang, field, `the server answered HTTP ${res.status}`);
  const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!type.startsWith('image/')) throw refused(lang, field, `the content type is ${type || 'missing'}, not an image`);
  if (res.body.length === 0) throw refused(lang, field, 'the image is empty');
  return { mimeType: type, data: res.body.toString('base64') };
}
