import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelTarget } from '../types.js';
import { baseUrlOf, isRecord, unexpected, videoCall } from '../../video/video-http.js';
import type { VideoProvider } from '../../video/video-types.js';
import { geminiOperationStatus, googleError, veoBody, veoPlan } from './formats/veo/index.js';
import type { GeminiVideoOperation } from './formats/veo/wire-types.js';

const DEFAULT_BASE = channelTypeInfo(ChannelType.Gemini)?.baseUrl ?? 'https://generativelanguage.googleapis.com';
/** An operation name as the Gemini API writes it: `models/{model}/operations/{id}`. */
const OPERATION = /^models\/[\w.-]+\/operations\/[\w.-]+$/;

const root = (t: ChannelTarget) => `${baseUrlOf(t, DEFAULT_BASE)}/v1beta`;
const auth = (t: ChannelTarget) => ({ 'x-goog-api-key': t.key });

/**
 * Google Veo through the Gemini API (type 24): `POST models/{model}:predictLongRunning`, then the
 * operation `GET {name}` until `done`. The video is a file URI on the API's host that needs the
 * key (`x-goog-api-key`; it redirects to a signed download): the content route fetches it, the key
 * sent only to the channel's own host.
 */
export const geminiVideoProvider: VideoProvider = {
  slug: 'veo',
  types: [ChannelType.Gemini],
  urls: 'credentialed',
  plan: veoPlan,
  async submit(target, req, plan, timeoutMs, io) {
    const body = await veoBody(req, plan, io, false);
    const r = await videoCall(target, { method: 'POST', url: `${root(target)}/models/${encodeURIComponent(req.upstreamModel)}:predictLongRunning`, headers: auth(target), body, timeoutMs });
    if (r.status !== 200) throw googleError(r);
    if (!isRecord(r.json) || typeof r.json.name !== 'string' || !OPERATION.test(r.json.name)) throw unexpected(r);
    return r.json.name;
  },
  async poll(target, name, timeoutMs) {
    if (!OPERATION.test(name)) return { state: 'failure', error: { code: 'bad_operation', message: `not an operation name: ${name.slice(0, 100)}` } };
    const r = await videoCall(target, { method: 'GET', url: `${root(target)}/${name}`, headers: auth(target), timeoutMs });
    if (r.status === 404) return { state: 'failure', error: { code: 'NOT_FOUND', message: googleError(r).message } };
    if (r.status !== 200 || !isRecord(r.json)) return null;
    return geminiOperationStatus(r.json as unknown as GeminiVideoOperation);
  },
  async source(target, _name, stored) {
    if (!stored.url) throw new Error('the operation named no video file');
    const sameHost = new URL(stored.url).origin === new URL(baseUrlOf(target, DEFAULT_BASE)).origin;
    return sameHost ? { kind: 'channel', url: stored.url, headers: auth(target) } : { kind: 'public', url: stored.url };
  },
};

export const videoProviders = [geminiVideoProvider];
