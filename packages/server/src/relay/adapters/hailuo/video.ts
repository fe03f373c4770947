import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, isRecord, textOf, unexpected, videoCall, type VideoReply } from '../../video/video-http.js';
import { checkImages, pickSeconds, pickSize, planOf } from '../../video/video-plan.js';
import { VideoInputError, VideoUpstreamError, type VideoProvider, type VideoStatus } from '../../video/video-types.js';
import type { HailuoQueryReply, HailuoVideoRequest } from './wire-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.MiniMax)?.baseUrl ?? 'https://api.minimax.chat';
/** MiniMax's content review: 1026 the input, 1027 the generated video. */
const SENSITIVE = new Set([1026, 1027]);

const base = (t: ChannelTarget) => baseUrlOf(t, DEFAULT_BASE);
const auth = (t: ChannelTarget) => ({ authorization: `Bearer ${t.key}` });

/** `base_resp` of an answer: undefined when it says success. */
export function baseRespError(r: VideoReply): VideoUpstreamError | undefined {
  const b = isRecord(r.json) && isRecord(r.json.base_resp) ? r.json.base_resp : undefined;
  if (!b) return unexpected(r);
  const code = typeof b.status_code === 'number' ? b.status_code : -1;
  if (code === 0 && r.status === 200) return undefined;
  const status = r.status !== 200 ? r.status : code === 1004 ? 401 : code === 1002 ? 429 : code === 1008 ? 402 : code >= 1000 && code < 3000 ? 400 : 502;
  return new VideoUpstreamError(status, String(code), textOf(b.status_msg) || String(code), SENSITIVE.has(code));
}

export function hailuoStatus(q: HailuoQueryReply): VideoStatus {
  if (q.status === 'Success') return { state: 'success' };
  if (q.status === 'Fail') return { state: 'failure', error: { code: String(q.base_resp?.status_code ?? 'Fail'), message: q.base_resp?.status_msg || 'video generation failed', ...(SENSITIVE.has(q.base_resp?.status_code) ? { moderation: true } : {}) } };
  return { state: q.status === 'Processing' ? 'in_progress' : 'queued' };
}

async function query(t: ChannelTarget, id: string, timeoutMs: number): Promise<HailuoQueryReply | null> {
  const r = await videoCall(t, { method: 'GET', url: `${base(t)}/v1/query/video_generation?task_id=${encodeURIComponent(id)}`, headers: auth(t), timeoutMs });
  return r.status === 200 && isRecord(r.json) && typeof r.json.status === 'string' ? (r.json as unknown as HailuoQueryReply) : null;
}

/** The file's current download URL (MiniMax hands one out per retrieve, valid for hours). */
async function downloadUrl(t: ChannelTarget, fileId: string, timeoutMs: number): Promise<string> {
  const r = await videoCall(t, { method: 'GET', url: `${base(t)}/v1/files/retrieve?file_id=${encodeURIComponent(fileId)}`, headers: auth(t), timeoutMs });
  const err = baseRespError(r);
  if (err) throw err;
  const url = isRecord(r.json) && isRecord(r.json.file) ? textOf(r.json.file.download_url) : '';
  if (!url) throw unexpected(r);
  return url;
}

/**
 * MiniMax Hailuo on MiniMax channels (type 35): a task by `task_id`, whose finished video is a file
 * (`file_id`) with a download URL retrieved on demand. Hailuo 02 makes 6 s or 10 s at 768P (10 s not
 * at 1080P); the first generation 6 s at 720P. Its answers carry errors in `base_resp` with HTTP 200.
 */
export const hailuoVideoProvider: VideoProvider = {
  slug: 'hailuo',
  types: [ChannelType.MiniMax],
  urls: 'expiring',
  plan(req) {
    checkImages(req, 2);
    if (!req.upstreamModel.startsWith('MiniMax-Hailuo')) return planOf(pickSeconds(req.seconds, [6], 6), pickSize(req.size, ['1280x720']));
    // Text to video is 16:9 at each tier (an image's own ratio decides otherwise).
    const size = pickSize(req.size, ['1366x768', '1920x1080', '912x512']);
    const seconds = pickSeconds(req.seconds, [6, 10], 6);
    if (size === '1920x1080' && seconds !== 6) throw new VideoInputError('seconds', '6 s at 1080p');
    return planOf(seconds, size);
  },
  async submit(target, req, plan, timeoutMs) {
    const body: HailuoVideoRequest = {
      ...(req.extras as Partial<HailuoVideoRequest>),
      model: req.upstreamModel,
      prompt: req.prompt,
      duration: plan.seconds,
      resolution: plan.resolution.toUpperCase() as HailuoVideoRequest['resolution'],
      ...(req.images[0] ? { first_frame_image: req.images[0] } : {}),
      ...(req.images[1] ? { last_frame_image: req.images[1] } : {}),
    };
    const r = await videoCall(target, { method: 'POST', url: `${base(target)}/v1/video_generation`, headers: auth(target), body, timeoutMs });
    const err = baseRespError(r);
    if (err) throw err;
    const id = isRecord(r.json) ? textOf(r.json.task_id) : '';
    if (!id) throw unexpected(r);
    return id;
  },
  async poll(target, id, timeoutMs) {
    const q = await query(target, id, timeoutMs);
    if (!q) return null;
    const s = hailuoStatus(q);
    if (s.state !== 'success') return s;
    if (!q.file_id) return { state: 'failure', error: { code: 'no_video', message: 'the task succeeded without a file' } };
    return { state: 'success', url: await downloadUrl(target, q.file_id, timeoutMs) };
  },
  async source(target, id, _stored, timeoutMs) {
    const q = await query(target, id, timeoutMs);
    if (!q?.file_id) throw new Error('the task names no video file');
    return { kind: 'public', url: await downloadUrl(target, q.file_id, timeoutMs) };
  },
};

export const videoProviders = [hailuoVideoProvider];
