import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, isRecord, textOf, unexpected, videoCall, type VideoReply } from '../../video/video-http.js';
import { aspectOf, checkImages, pickSeconds, pickSize, planOf } from '../../video/video-plan.js';
import { VideoUpstreamError, type VideoProvider, type VideoStatus } from '../../video/video-types.js';
import type { ViduCreations, ViduVideoRequest } from './wire-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.Vidu)?.baseUrl ?? 'https://api.vidu.cn';
/** Vidu's refusals of the content (its audit), by err_code or reason. */
const AUDIT = /Audit|Policy|Sensitive/i;

const auth = (t: ChannelTarget) => ({ authorization: `Token ${t.key}` });
const root = (t: ChannelTarget) => `${baseUrlOf(t, DEFAULT_BASE)}/ent/v2`;

export function viduError(r: VideoReply): VideoUpstreamError {
  if (!isRecord(r.json) || (!textOf(r.json.reason) && !textOf(r.json.message))) return unexpected(r);
  const reason = textOf(r.json.reason) || String(r.json.code ?? 'error');
  return new VideoUpstreamError(r.status, reason, textOf(r.json.message) || reason, AUDIT.test(reason));
}

export function viduStatus(c: ViduCreations): VideoStatus {
  if (c.state === 'success') return c.creations?.[0]?.url ? { state: 'success', url: c.creations[0].url } : { state: 'failure', error: { code: 'no_video', message: 'the task succeeded without a creation' } };
  if (c.state === 'failed') return { state: 'failure', error: { code: c.err_code || 'failed', message: c.err_code || 'video generation failed', ...(AUDIT.test(c.err_code) ? { moderation: true } : {}) } };
  return { state: c.state === 'processing' ? 'in_progress' : 'queued' };
}

/**
 * Vidu (type 52): `POST /ent/v2/text2video`, `/img2video` (one image) or `/start-end2video` (two),
 * then `GET /ent/v2/tasks/{id}/creations`. Q1 makes 5 s at 1080p; 2.0 and 1.5 make 4 s or 8 s up
 * to 1080p. Its creation URLs expire: callers fetch through the gateway's content route.
 */
export const viduVideoProvider: VideoProvider = {
  slug: 'vidu',
  types: [ChannelType.Vidu],
  urls: 'expiring',
  plan(req) {
    checkImages(req, 2);
    if (req.upstreamModel.startsWith('viduq')) return planOf(pickSeconds(req.seconds, [5], 5), pickSize(req.size, ['1920x1080', '1080x1920', '1080x1080']));
    return planOf(pickSeconds(req.seconds, [4, 8], 4), pickSize(req.size, ['1280x720', '720x1280', '720x720', '640x360', '360x640', '1920x1080', '1080x1920']));
  },
  async submit(target, req, plan, timeoutMs) {
    const path = req.images.length === 2 ? 'start-end2video' : req.images.length === 1 ? 'img2video' : 'text2video';
    const body: ViduVideoRequest = {
      ...(req.extras as Partial<ViduVideoRequest>),
      model: req.upstreamModel,
      prompt: req.prompt,
      duration: plan.seconds,
      resolution: plan.resolution as ViduVideoRequest['resolution'],
      ...(req.images.length ? { images: req.images } : { aspect_ratio: aspectOf(plan.size, ['16:9', '9:16', '1:1'], '16:9') as ViduVideoRequest['aspect_ratio'] }),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
    };
    const r = await videoCall(target, { method: 'POST', url: `${root(target)}/${path}`, headers: auth(target), body, timeoutMs });
    if (r.status !== 200) throw viduError(r);
    if (!isRecord(r.json) || !textOf(r.json.task_id)) throw unexpected(r);
    if (r.json.state === 'failed') throw new VideoUpstreamError(400, 'task_failed', 'the upstream refused the task');
    return textOf(r.json.task_id);
  },
  async poll(target, id, timeoutMs) {
    const r = await videoCall(target, { method: 'GET', url: `${root(target)}/tasks/${encodeURIComponent(id)}/creations`, headers: auth(target), timeoutMs });
    if (r.status !== 200 || !isRecord(r.json) || typeof r.json.state !== 'string') return null;
    return viduStatus(r.json as unknown as ViduCreations);
  },
  async source(target, id, stored, timeoutMs) {
    const now = await viduVideoProvider.poll(target, id, timeoutMs).catch(() => null);
    const url = now?.state === 'success' && now.url ? now.url : stored.url;
    if (!url) throw new Error('the task named no video URL');
    return { kind: 'public', url };
  },
};

export const videoProviders = [viduVideoProvider];
