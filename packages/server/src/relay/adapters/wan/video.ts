import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, isRecord, textOf, unexpected, videoCall, type VideoReply } from '../../video/video-http.js';
import { checkImages, pickSeconds, pickSize, planOf } from '../../video/video-plan.js';
import { VideoUpstreamError, type VideoProvider, type VideoStatus } from '../../video/video-types.js';
import type { WanTaskOutput, WanVideoRequest } from './wire-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.Ali)?.baseUrl ?? 'https://dashscope.aliyuncs.com';
const SIZES = ['1920x1080', '1080x1920', '1440x1440', '1280x720', '720x1280', '960x960', '832x480', '480x832', '624x624'];
/** DashScope's moderation refusals (input or output). */
const MODERATION = /DataInspectionFailed|IPInfringementSuspect|inappropriate/i;

const auth = (t: ChannelTarget) => ({ authorization: `Bearer ${t.key}` });

export function dashscopeError(r: VideoReply): VideoUpstreamError {
  if (!isRecord(r.json) || !textOf(r.json.code)) return unexpected(r);
  const code = textOf(r.json.code);
  return new VideoUpstreamError(r.status, code, textOf(r.json.message) || code, MODERATION.test(code));
}

export function wanStatus(o: WanTaskOutput): VideoStatus {
  if (o.task_status === 'SUCCEEDED') return o.video_url ? { state: 'success', url: o.video_url, expiresAt: Math.floor(Date.now() / 1000) + 86_400 } : { state: 'failure', error: { code: 'no_video', message: 'the task succeeded without a video' } };
  if (o.task_status === 'FAILED' || o.task_status === 'CANCELED' || o.task_status === 'UNKNOWN') {
    const code = o.code || o.task_status;
    return { state: 'failure', error: { code, message: o.message || `the task is ${o.task_status}`, ...(MODERATION.test(code) ? { moderation: true } : {}) } };
  }
  return { state: o.task_status === 'RUNNING' ? 'in_progress' : 'queued' };
}

/**
 * Alibaba Wan through DashScope's asynchronous video synthesis, on Alibaba channels (type 17): text
 * to video takes a `width*height` size, image to video (`…i2v…` models, the image as `img_url`) a
 * `480P`/`720P`/`1080P` resolution. Its video URLs last 24 hours: callers fetch through the
 * gateway's content route, which asks DashScope for the task again.
 */
export const wanVideoProvider: VideoProvider = {
  slug: 'wan',
  types: [ChannelType.Ali],
  urls: 'expiring',
  plan(req) {
    checkImages(req, 1);
    return planOf(pickSeconds(req.seconds, req.upstreamModel.startsWith('wan2.5') ? [5, 10] : [5], 5), pickSize(req.size, SIZES));
  },
  async submit(target, req, plan, timeoutMs) {
    const extras = req.extras as Partial<WanVideoRequest>;
    const i2v = req.upstreamModel.includes('i2v') || req.images.length > 0;
    const body: WanVideoRequest = {
      model: req.upstreamModel,
      input: { ...(isRecord(extras.input) ? extras.input : {}), prompt: req.prompt, ...(req.negativePrompt ? { negative_prompt: req.negativePrompt } : {}), ...(req.images[0] ? { img_url: req.images[0] } : {}) },
      parameters: {
        ...(isRecord(extras.parameters) ? extras.parameters : {}),
        duration: plan.seconds,
        ...(i2v ? { resolution: plan.resolution.toUpperCase() } : { size: plan.size.replace('x', '*') }),
        ...(req.seed !== undefined ? { seed: req.seed } : {}),
      },
    };
    if (i2v) delete body.parameters!.size;
    else delete body.parameters!.resolution;
    const r = await videoCall(target, {
      method: 'POST',
      url: `${baseUrlOf(target, DEFAULT_BASE)}/api/v1/services/aigc/video-generation/video-synthesis`,
      headers: { ...auth(target), 'x-dashscope-async': 'enable' },
      body,
      timeoutMs,
    });
    if (r.status !== 200) throw dashscopeError(r);
    const id = isRecord(r.json) && isRecord(r.json.output) ? textOf(r.json.output.task_id) : '';
    if (!id) throw unexpected(r);
    return id;
  },
  async poll(target, id, timeoutMs) {
    const r = await videoCall(target, { method: 'GET', url: `${baseUrlOf(target, DEFAULT_BASE)}/api/v1/tasks/${encodeURIComponent(id)}`, headers: auth(target), timeoutMs });
    if (r.status !== 200 || !isRecord(r.json) || !isRecord(r.json.output)) return null;
    return wanStatus(r.json.output as unknown as WanTaskOutput);
  },
  async source(target, id, stored, timeoutMs) {
    const now = await wanVideoProvider.poll(target, id, timeoutMs).catch(() => null);
    const url = now?.state === 'success' && now.url ? now.url : stored.url;
    if (!url) throw new Error('the task named no video URL');
    return { kind: 'public', url };
  },
};

export const videoProviders = [wanVideoProvider];
