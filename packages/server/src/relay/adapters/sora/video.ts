import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, isRecord, textOf, unexpected, videoCall, type VideoReply } from '../../video/video-http.js';
import { checkImages, pickSeconds, pickSize, planOf } from '../../video/video-plan.js';
import { VideoUpstreamError, type VideoProvider, type VideoStatus } from '../../video/video-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.OpenAI)?.baseUrl ?? 'https://api.openai.com';
/** Sora's durations and sizes (OpenAI Videos API, `VideoSeconds` and `VideoSize`); the portrait 720p size is the default. */
const SECONDS = [4, 8, 12];
const SIZES = ['720x1280', '1280x720'];
const PRO_SIZES = [...SIZES, '1024x1792', '1792x1024'];

const base = (t: ChannelTarget) => `${baseUrlOf(t, DEFAULT_BASE)}/v1/videos`;

function auth(t: ChannelTarget): Record<string, string> {
  return { authorization: `Bearer ${t.key}`, ...(t.organization ? { 'openai-organization': t.organization } : {}) };
}

/** OpenAI's error object; `moderation_blocked` is its content policy refusing the prompt or the reference image. */
export function soraError(r: VideoReply): VideoUpstreamError {
  const e = isRecord(r.json) && isRecord(r.json.error) ? r.json.error : undefined;
  if (!e) return unexpected(r);
  const code = textOf(e.code) || textOf(e.type) || 'upstream_error';
  return new VideoUpstreamError(r.status, code, textOf(e.message) || code, code === 'moderation_blocked');
}

/** A `Video` (OpenAI's VideoResource) read into the shared states. */
export function soraStatus(v: Record<string, unknown>): VideoStatus {
  const status = v.status;
  const progress = typeof v.progress === 'number' ? v.progress : undefined;
  const expiresAt = typeof v.expires_at === 'number' ? { expiresAt: v.expires_at } : {};
  if (status === 'completed') return { state: 'success', progress: 100, ...expiresAt };
  if (status === 'failed') {
    const e = isRecord(v.error) ? v.error : {};
    const code = textOf(e.code) || 'video_generation_failed';
    return { state: 'failure', error: { code, message: textOf(e.message) || code, ...(code === 'moderation_blocked' ? { moderation: true } : {}) } };
  }
  return { state: status === 'in_progress' ? 'in_progress' : 'queued', ...(progress !== undefined ? { progress } : {}) };
}

/**
 * OpenAI Sora through the Videos API (`POST /v1/videos`, `GET /v1/videos/{id}`, `…/content`,
 * `DELETE`), on OpenAI channels (type 1) and Sora channels (type 55). The JSON create body of
 * OpenAI's spec (CreateVideoJsonBody) carries a reference image as `input_reference.image_url`, an
 * http(s) or base64 data URL. The video's bytes need the channel's key: callers get them through
 * the gateway's content route.
 */
export const soraVideoProvider: VideoProvider = {
  slug: 'sora',
  types: [ChannelType.OpenAI, ChannelType.Sora],
  urls: 'credentialed',
  plan(req) {
    checkImages(req, 1);
    const seconds = pickSeconds(req.seconds, SECONDS, 4);
    const size = pickSize(req.size, req.upstreamModel.startsWith('sora-2-pro') ? PRO_SIZES : SIZES);
    return planOf(seconds, size);
  },
  async submit(target, req, plan, timeoutMs) {
    const body: Record<string, unknown> = { ...req.extras, model: req.upstreamModel, prompt: req.prompt, seconds: String(plan.seconds), size: plan.size };
    if (req.images[0]) body.input_reference = { image_url: req.images[0] };
    const r = await videoCall(target, { method: 'POST', url: base(target), headers: auth(target), body, timeoutMs });
    if (r.status !== 200) throw soraError(r);
    if (!isRecord(r.json) || typeof r.json.id !== 'string' || !r.json.id) throw unexpected(r);
    return r.json.id;
  },
  async poll(target, id, timeoutMs) {
    const r = await videoCall(target, { method: 'GET', url: `${base(target)}/${encodeURIComponent(id)}`, headers: auth(target), timeoutMs });
    // A job the upstream no longer knows is over: nothing will come of it.
    if (r.status === 404) return { state: 'failure', error: { code: 'not_found', message: soraError(r).message } };
    if (r.status !== 200 || !isRecord(r.json)) return null;
    return soraStatus(r.json);
  },
  async source(target, id) {
    return { kind: 'channel', url: `${base(target)}/${encodeURIComponent(id)}/content`, headers: auth(target) };
  },
  async remove(target, id, timeoutMs) {
    const r = await videoCall(target, { method: 'DELETE', url: `${base(target)}/${encodeURIComponent(id)}`, headers: auth(target), timeoutMs });
    if (r.status !== 200 && r.status !== 404) throw soraError(r);
  },
};

export const videoProviders = [soraVideoProvider];
