/**
 * DashScope's asynchronous text2image task (reference §2) against OpenAI's images API: the submit
 * body (`{model, input:{prompt, negative_prompt}, parameters:{size:"W*H", n}}`), the task reply
 * (`output.task_status` PENDING → RUNNING → SUCCEEDED | FAILED | CANCELED | UNKNOWN, `results`
 * with image URLs or per-image `{code, message}`) and OpenAI's `{created, data:[{url}]}`.
 */
import type { Lang } from '@modelgate/shared';
import { isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { WireError } from '../../../../formats/types.js';

/** An OpenAI images body → an image-synthesis body. DashScope answers URLs only, so `b64_json` is refused. */
export function dashscopeImageRequest(body: Record<string, unknown>, model: string, lang: Lang): Record<string, unknown> {
  if (typeof body.prompt !== 'string' || !body.prompt) throw unsupported(lang, 'prompt', 'a text prompt is required');
  if (body.response_format === 'b64_json') throw unsupported(lang, 'response_format', 'DashScope image synthesis answers image URLs only (response_format "url")');
  const input: Record<string, unknown> = { prompt: body.prompt };
  if (typeof body.negative_prompt === 'string' && body.negative_prompt) input.negative_prompt = body.negative_prompt;
  const parameters: Record<string, unknown> = { n: typeof body.n === 'number' ? body.n : 1 };
  if (typeof body.size === 'string' && body.size) {
    if (!/^\d+x\d+$/.test(body.size)) throw unsupported(lang, 'size', 'a size such as 1024x1024');
    parameters.size = body.size.replace('x', '*');
  }
  if (typeof body.seed === 'number') parameters.seed = body.seed;
  return { model, input, parameters };
}

/** The task id of a submit reply, or undefined when the reply is not one. */
export function dashscopeTaskId(json: Record<string, unknown>): string | undefined {
  const output = isObj(json.output) ? json.output : undefined;
  return output && typeof output.task_id === 'string' && output.task_id ? output.task_id : undefined;
}

export function dashscopeTaskStatus(json: Record<string, unknown>): string {
  const output = isObj(json.output) ? json.output : {};
  return typeof output.task_status === 'string' ? output.task_status : '';
}

/** A task that is finished either way (an empty status also stops polling, as in the reference). */
export function dashscopeTaskDone(json: Record<string, unknown>): boolean {
  const s = dashscopeTaskStatus(json);
  return s === '' || s === 'SUCCEEDED' || s === 'FAILED' || s === 'CANCELED' || s === 'UNKNOWN';
}

/** Codes ModelGate gives its own task failures (written where DashScope writes `code`). */
export const TASK_TIMEOUT = 'ali_async_task_timeout';
export const TASK_POLL_FAILED = 'ali_async_task_failed';

/** The error of a finished task that did not succeed, or of ModelGate's own task failure; undefined for a success. */
export function dashscopeTaskError(json: Record<string, unknown>): WireError | undefined {
  if (typeof json.code === 'string' && (json.code === TASK_TIMEOUT || json.code === TASK_POLL_FAILED)) {
    return { status: json.code === TASK_TIMEOUT ? 504 : 502, type: 'ali_error', code: json.code, param: null, message: typeof json.message === 'string' ? json.message : json.code };
  }
  if (!isObj(json.output) || dashscopeTaskId(json) === undefined) return undefined;
  const status = dashscopeTaskStatus(json);
  // A task still queued or running is the submit reply, which the adapter follows up.
  if (status === 'PENDING' || status === 'RUNNING') return undefined;
  if (status === 'SUCCEEDED' && imageUrls(json).length > 0) return undefined;
  const o = json.output;
  const failed = Array.isArray(o.results) ? o.results.find((r) => isObj(r) && typeof r.code === 'string') : undefined;
  const code = typeof o.code === 'string' && o.code ? o.code : isObj(failed) ? String(failed.code) : `task_${status.toLowerCase() || 'unknown'}`;
  const message = typeof o.message === 'string' && o.message ? o.message : isObj(failed) && typeof failed.message === 'string' ? failed.message : `the image task ended ${status || 'without a status'}`;
  return { status: 500, type: 'ali_error', code, param: null, message };
}

function imageUrls(json: Record<string, unknown>): string[] {
  const o = isObj(json.output) ? json.output : {};
  return (Array.isArray(o.results) ? o.results : []).map((r) => (isObj(r) && typeof r.url === 'string' ? r.url : '')).filter(Boolean);
}

/** A succeeded task → OpenAI's images reply (the images that came out; failed ones are left out). */
export function dashscopeImageResponse(json: Record<string, unknown>): Record<string, unknown> {
  const o = isObj(json.output) ? json.output : {};
  const end = typeof o.end_time === 'string' ? Date.parse(o.end_time.replace(' ', 'T')) : NaN;
  return { created: Math.floor((Number.isFinite(end) ? end : Date.now()) / 1000), data: imageUrls(json).map((url) => ({ url })) };
}
