import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, isRecord, textOf, unexpected, videoCall, type VideoReply } from '../../video/video-http.js';
import { aspectOf, checkImages, pickSeconds, pickSize, planOf } from '../../video/video-plan.js';
import { VideoUpstreamError, type VideoProvider, type VideoStatus } from '../../video/video-types.js';
import type { ArkContent, ArkVideoRequest, ArkVideoTask } from './wire-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.DoubaoVideo)?.baseUrl ?? 'https://ark.cn-beijing.volces.com';
const SIZES = ['1280x720', '720x1280', '960x960', '1920x1080', '1080x1920', '1440x1440', '864x480', '480x864', '640x640'];
const RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'];
/** Seedance's text commands that decide the length and the resolution: the gateway sets those, so a prompt cannot buy a longer or sharper video than it paid for. */
const BILLED_COMMANDS = /\s*--(?:resolution|rs|duration|dur|frames|ratio|rt)\s+\S+/gi;

const tasks = (t: ChannelTarget) => `${baseUrlOf(t, DEFAULT_BASE)}/api/v3/contents/generations/tasks`;
const auth = (t: ChannelTarget) => ({ authorization: `Bearer ${t.key}` });

/** Ark's error object; the `…SensitiveContentDetected` codes are its content review. */
export function arkError(r: VideoReply): VideoUpstreamError {
  const e = isRecord(r.json) && isRecord(r.json.error) ? r.json.error : undefined;
  if (!e) return unexpected(r);
  const code = textOf(e.code) || 'error';
  return new VideoUpstreamError(r.status, code, textOf(e.message) || code, /Sensitive|RiskDetected/.test(code));
}

export function arkStatus(t: ArkVideoTask): VideoStatus {
  if (t.status === 'succeeded') return t.content?.video_url ? { state: 'success', url: t.content.video_url, expiresAt: t.updated_at + 86_400 } : { state: 'failure', error: { code: 'no_video', message: 'the task succeeded without a video' } };
  if (t.status === 'failed' || t.status === 'cancelled') {
    const code = t.error?.code || t.status;
    return { state: 'failure', error: { code, message: t.error?.message || `the task was ${t.status}`, ...(/Sensitive|RiskDetected/.test(code) ? { moderation: true } : {}) } };
  }
  return { state: t.status === 'running' ? 'in_progress' : 'queued' };
}

/**
 * Doubao Seedance through Volcengine Ark (type 54): a content-generation task (`content`: the
 * prompt, reference images as first and last frames) with its resolution, ratio and duration as
 * parameters, polled by id. Ark's video URLs last 24 hours: callers fetch through the gateway's
 * content route, which asks Ark for the task again.
 */
export const seedanceVideoProvider: VideoProvider = {
  slug: 'seedance',
  types: [ChannelType.DoubaoVideo],
  urls: 'expiring',
  plan(req) {
    checkImages(req, 2);
    return planOf(pickSeconds(req.seconds, [5, 10], 5), pickSize(req.size, SIZES));
  },
  async submit(target, req, plan, timeoutMs) {
    const content: ArkContent[] = [{ type: 'text', text: req.prompt.replace(BILLED_COMMANDS, '') }];
    req.images.forEach((url, i) => content.push({ type: 'image_url', image_url: { url }, ...(req.images.length > 1 ? { role: i === 0 ? ('first_frame' as const) : ('last_frame' as const) } : {}) }));
    const body: ArkVideoRequest = {
      ...(req.extras as Partial<ArkVideoRequest>),
      model: req.upstreamModel,
      content,
      resolution: plan.resolution as ArkVideoRequest['resolution'],
      ratio: aspectOf(plan.size, RATIOS, '16:9') as ArkVideoRequest['ratio'],
      duration: plan.seconds,
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
    };
    const r = await videoCall(target, { method: 'POST', url: tasks(target), headers: auth(target), body, timeoutMs });
    if (r.status !== 200) throw arkError(r);
    if (!isRecord(r.json) || !textOf(r.json.id)) throw unexpected(r);
    return textOf(r.json.id);
  },
  async poll(target, id, timeoutMs) {
    const r = await videoCall(target, { method: 'GET', url: `${tasks(target)}/${encodeURIComponent(id)}`, headers: auth(target), timeoutMs });
    if (r.status === 404) return { state: 'failure', error: { code: 'NotFound', message: arkError(r).message } };
    if (r.status !== 200 || !isRecord(r.json)) return null;
    return arkStatus(r.json as unknown as ArkVideoTask);
  },
  async source(target, id, stored, timeoutMs) {
    const now = await seedanceVideoProvider.poll(target, id, timeoutMs).catch(() => null);
    const url = now?.state === 'success' && now.url ? now.url : stored.url;
    if (!url) throw new Error('the task named no video URL');
    return { kind: 'public', url };
  },
};

export const videoProviders = [seedanceVideoProvider];
