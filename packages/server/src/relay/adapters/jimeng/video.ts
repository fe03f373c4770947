import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, dataUrlParts, isRecord, textOf, unexpected, videoCall, type VideoReply } from '../../video/video-http.js';
import { aspectOf, checkImages, pickSeconds, pickSize, planOf } from '../../video/video-plan.js';
import { VideoUpstreamError, type VideoProvider, type VideoStatus } from '../../video/video-types.js';
import { volcSign } from './sign.js';
import type { JimengResult, JimengSubmitRequest } from './wire-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.Jimeng)?.baseUrl ?? 'https://visual.volcengineapi.com';
const VERSION = '2022-08-31';
const SCOPE = { region: 'cn-north-1', service: 'cv' };
const OK = 10_000;
/** Risk review of the input (50411 image, 50412 text) and of the output (50511 image, 50413 text). */
const RISK = new Set([50411, 50412, 50413, 50511]);
/** `{req_key}:{task_id}`: the result query needs the request key the task was made with. */
const UPSTREAM_ID = /^([\w.-]+):([\w.-]+)$/;

function credentials(t: ChannelTarget) {
  const [ak, sk, ...rest] = t.key.split('|').map((p) => p.trim());
  if (!ak || !sk || rest.length) throw new VideoUpstreamError(401, 'invalid_channel_key', 'the channel key is not AccessKeyId|SecretAccessKey');
  return { accessKeyId: ak, secretAccessKey: sk };
}

async function action(t: ChannelTarget, name: string, body: unknown, timeoutMs: number): Promise<VideoReply> {
  const creds = credentials(t);
  const url = `${baseUrlOf(t, DEFAULT_BASE)}/?Action=${name}&Version=${VERSION}`;
  return videoCall(t, { method: 'POST', url, body, timeoutMs }, (r) => volcSign(creds, { method: r.method, url: r.url, contentType: r.headers['content-type']!, body: r.body }, SCOPE));
}

export function jimengError(r: VideoReply): VideoUpstreamError {
  if (!isRecord(r.json) || typeof r.json.code !== 'number') return unexpected(r);
  const code = r.json.code;
  return new VideoUpstreamError(r.status >= 400 ? r.status : code === 50429 ? 429 : code >= 50500 ? 502 : 400, String(code), textOf(r.json.message) || String(code), RISK.has(code));
}

/**
 * The request key of a model and its images, as Volcengine names them: Jimeng 3.0 (`jimeng_t2v_v30`,
 * `…_1080p`) becomes `jimeng_i2v_first_v30` with one image and `jimeng_i2v_first_tail_v30` with
 * two (the 1080P image keys end `_1080`); other keys are sent as they are.
 */
export function jimengReqKey(model: string, images: number): string {
  if (!model.startsWith('jimeng_t2v_v30') || images === 0) return model;
  const hd = model.endsWith('_1080p');
  return `${images > 1 ? 'jimeng_i2v_first_tail_v30' : 'jimeng_i2v_first_v30'}${hd ? '_1080' : ''}`;
}

export function jimengStatus(code: number, message: string, d: JimengResult | null): VideoStatus {
  if (code !== OK) return { state: 'failure', error: { code: String(code), message: message || String(code), ...(RISK.has(code) ? { moderation: true } : {}) } };
  if (!d) return { state: 'queued' };
  if (d.status === 'done') return d.video_url ? { state: 'success', url: d.video_url, expiresAt: Math.floor(Date.now() / 1000) + 3600 } : { state: 'failure', error: { code: 'no_video', message: 'the task is done without a video' } };
  if (d.status === 'not_found' || d.status === 'expired') return { state: 'failure', error: { code: d.status, message: `the task is ${d.status.replace('_', ' ')}` } };
  return { state: d.status === 'generating' ? 'in_progress' : 'queued' };
}

/**
 * Jimeng (type 51) on Volcengine's visual API, every request signed with the channel's access key
 * pair: `CVSync2AsyncSubmitTask` then `CVSync2AsyncGetResult` with the request key and task id.
 * Jimeng 3.0 makes 5 s or 10 s (121 or 241 frames) at 720P, or 1080P with its `_1080p` key; its
 * video URLs last an hour, so callers fetch through the gateway's content route.
 */
export const jimengVideoProvider: VideoProvider = {
  slug: 'jimeng',
  types: [ChannelType.Jimeng],
  urls: 'expiring',
  plan(req) {
    checkImages(req, 2);
    const hd = req.upstreamModel.endsWith('_1080p');
    const seconds = pickSeconds(req.seconds, req.upstreamModel.startsWith('jimeng_t2v_v30') ? [5, 10] : [5], 5);
    return planOf(seconds, pickSize(req.size, hd ? ['1920x1080', '1080x1920', '1440x1440'] : ['1280x720', '720x1280', '960x960']));
  },
  async submit(target, req, plan, timeoutMs) {
    const reqKey = jimengReqKey(req.upstreamModel, req.images.length);
    const inline = req.images.map((u) => dataUrlParts(u)?.base64);
    const body: JimengSubmitRequest = {
      ...(req.extras as Partial<JimengSubmitRequest>),
      req_key: reqKey,
      prompt: req.prompt,
      seed: req.seed ?? -1,
      frames: plan.seconds * 24 + 1,
      ...(req.images.length ? {} : { aspect_ratio: aspectOf(plan.size, ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'], '16:9') as JimengSubmitRequest['aspect_ratio'] }),
    };
    delete body.image_urls;
    delete body.binary_data_base64;
    if (req.images.length) {
      if (inline.every((b) => b !== undefined)) body.binary_data_base64 = inline as string[];
      else body.image_urls = req.images;
    }
    const r = await action(target, 'CVSync2AsyncSubmitTask', body, timeoutMs);
    if (r.status !== 200 || !isRecord(r.json) || r.json.code !== OK) throw jimengError(r);
    const id = isRecord(r.json.data) ? textOf(r.json.data.task_id) : '';
    if (!id) throw unexpected(r);
    return `${reqKey}:${id}`;
  },
  async poll(target, upstreamId, timeoutMs) {
    const m = UPSTREAM_ID.exec(upstreamId);
    if (!m) return { state: 'failure', error: { code: 'bad_task_id', message: 'not a Jimeng task' } };
    const r = await action(target, 'CVSync2AsyncGetResult', { req_key: m[1], task_id: m[2] }, timeoutMs);
    if (!isRecord(r.json) || typeof r.json.code !== 'number') return null;
    // Throttled (QPS or concurrency): the task is not judged, it is asked for again.
    if (r.json.code === 50429 || r.json.code === 50430) return null;
    return jimengStatus(r.json.code, textOf(r.json.message), isRecord(r.json.data) ? (r.json.data as unknown as JimengResult) : null);
  },
  async source(target, upstreamId, stored, timeoutMs) {
    const now = await jimengVideoProvider.poll(target, upstreamId, timeoutMs).catch(() => null);
    const url = now?.state === 'success' && now.url ? now.url : stored.url;
    if (!url) throw new Error('the task named no video URL');
    return { kind: 'public', url };
  },
};

export const videoProviders = [jimengVideoProvider];
