import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, dataUrlParts, isRecord, textOf, unexpected, videoCall, type VideoReply } from '../../video/video-http.js';
import { aspectOf, checkImages, pickSeconds, pickSize, planOf } from '../../video/video-plan.js';
import { VideoUpstreamError, type VideoProvider, type VideoStatus } from '../../video/video-types.js';
import { klingToken } from './jwt.js';
import type { KlingTask, KlingVideoRequest } from './wire-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.Kling)?.baseUrl ?? 'https://api.klingai.com';
/** Standard mode renders 720p, professional mode 1080p (Kling's price list by mode). */
const SIZES = ['1280x720', '720x1280', '720x720', '1920x1080', '1080x1920', '1080x1080'];
/** `text2video/{id}` or `image2video/{id}`: the query path is the submit's. */
const UPSTREAM_ID = /^(text2video|image2video)\/([\w-]+)$/;

function auth(t: ChannelTarget): Record<string, string> {
  const token = klingToken(t.key);
  if (!token) throw new VideoUpstreamError(401, 'invalid_channel_key', 'the channel key is not AccessKey|SecretKey');
  return { authorization: `Bearer ${token}` };
}

/** Kling's `{code, message}` refusal; 1301 (and the 1300 platform policy) is its content security saying no. */
export function klingError(r: VideoReply): VideoUpstreamError {
  if (!isRecord(r.json) || typeof r.json.code !== 'number') return unexpected(r);
  const code = r.json.code;
  return new VideoUpstreamError(r.status >= 400 ? r.status : 400, String(code), textOf(r.json.message) || String(code), code === 1300 || code === 1301);
}

export function klingStatus(t: KlingTask): VideoStatus {
  if (t.task_status === 'succeed') {
    const v = t.task_result?.videos?.[0];
    return v?.url ? { state: 'success', url: v.url, expiresAt: Math.floor(t.updated_at / 1000) + 30 * 86_400 } : { state: 'failure', error: { code: 'no_video', message: 'the task succeeded without a video' } };
  }
  if (t.task_status === 'failed') {
    const message = t.task_status_msg || 'video generation failed';
    return { state: 'failure', error: { code: 'failed', message, ...(/risk|security|policy|sensitive/i.test(message) ? { moderation: true } : {}) } };
  }
  return { state: t.task_status === 'processing' ? 'in_progress' : 'queued' };
}

/**
 * Kling (type 50): `POST /v1/videos/text2video` or `/image2video` with an HS256 JWT signed from the
 * channel's AccessKey|SecretKey, then `GET` the same path with the task id. The tier picks the mode
 * (720p standard, 1080p professional), the size the aspect ratio. Its video URLs last 30 days:
 * callers get them as they are.
 */
export const klingVideoProvider: VideoProvider = {
  slug: 'kling',
  types: [ChannelType.Kling],
  urls: 'lasting',
  plan(req) {
    checkImages(req, 2);
    return planOf(pickSeconds(req.seconds, [5, 10], 5), pickSize(req.size, SIZES));
  },
  async submit(target, req, plan, timeoutMs) {
    const path = req.images.length ? 'image2video' : 'text2video';
    // Kling takes an image as a URL or bare base64.
    const image = (url: string) => dataUrlParts(url)?.base64 ?? url;
    const body: KlingVideoRequest = {
      ...(req.extras as KlingVideoRequest),
      model_name: req.upstreamModel,
      prompt: req.prompt,
      mode: plan.resolution === '1080p' ? 'pro' : 'std',
      duration: String(plan.seconds) as '5' | '10',
      aspect_ratio: aspectOf(plan.size, ['16:9', '9:16', '1:1'], '16:9') as KlingVideoRequest['aspect_ratio'],
      ...(req.negativePrompt ? { negative_prompt: req.negativePrompt } : {}),
      ...(req.images[0] ? { image: image(req.images[0]) } : {}),
      ...(req.images[1] ? { image_tail: image(req.images[1]) } : {}),
    };
    if (!req.images.length) {
      delete body.image;
      delete body.image_tail;
    }
    const r = await videoCall(target, { method: 'POST', url: `${baseUrlOf(target, DEFAULT_BASE)}/v1/videos/${path}`, headers: auth(target), body, timeoutMs });
    if (r.status !== 200 || !isRecord(r.json) || r.json.code !== 0) throw klingError(r);
    const id = isRecord(r.json.data) ? textOf(r.json.data.task_id) : '';
    if (!id) throw unexpected(r);
    return `${path}/${id}`;
  },
  async poll(target, upstreamId, timeoutMs) {
    if (!UPSTREAM_ID.test(upstreamId)) return { state: 'failure', error: { code: 'bad_task_id', message: 'not a Kling task' } };
    const r = await videoCall(target, { method: 'GET', url: `${baseUrlOf(target, DEFAULT_BASE)}/v1/videos/${upstreamId}`, headers: auth(target), timeoutMs });
    if (r.status !== 200 || !isRecord(r.json) || r.json.code !== 0 || !isRecord(r.json.data)) return null;
    return klingStatus(r.json.data as unknown as KlingTask);
  },
  async source(_target, _id, stored) {
    if (!stored.url) throw new Error('the task named no video URL');
    return { kind: 'public', url: stored.url };
  },
};

export const videoProviders = [klingVideoProvider];
