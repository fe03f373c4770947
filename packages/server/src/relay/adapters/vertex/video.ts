import { ChannelType, isVertexRegion } from '@modelgate/shared';
import { trimBase } from '../openai-base.js';
import { SigningError, type ChannelTarget } from '../types.js';
import { isRecord, unexpected, videoCall } from '../../video/video-http.js';
import { VideoUpstreamError, type VideoProvider, type VideoSource } from '../../video/video-types.js';
import { googleError, veoBody, veoPlan, vertexOperationStatus } from '../gemini/formats/veo/index.js';
import type { VertexVideoOperation } from '../gemini/formats/veo/wire-types.js';
import { host, vertexRegion } from './adapter.js';
import { exchangeToken, parseServiceAccount, TokenCache } from './service-account.js';

const tokens = new TokenCache(exchangeToken);
/** `projects/{p}/locations/{l}/publishers/google/models/{m}/operations/{id}`: the model's resource, then the operation. */
const OPERATION = /^(projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/[^/]+)\/operations\/[\w.-]+$/;

/** The model's resource URL for this channel (its region from `other`, its project from the key; base_url overrides the host). */
function modelUrl(t: ChannelTarget, model: string): string {
  const region = vertexRegion(t.other, model);
  if (!isVertexRegion(region)) throw new VideoUpstreamError(500, 'channel_target_invalid', `Vertex AI channel #${t.id}: its region is not a region name`);
  const project = parseServiceAccount(t.key).project_id;
  return `${trimBase(t.baseUrl || host(region))}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/google/models/${encodeURIComponent(model)}`;
}

async function bearer(t: ChannelTarget): Promise<Record<string, string>> {
  try {
    return { authorization: `Bearer ${await tokens.token(t.id, t.key, { baseUrl: t.baseUrl, guard: t.guard })}` };
  } catch (err) {
    if (err instanceof SigningError) throw new VideoUpstreamError(err.upstream.retryable ? 502 : 401, err.upstream.code ?? 'token_exchange_failed', err.message);
    throw err;
  }
}

/** The operation's resource base URL: the host this channel uses and the model resource the name carries. */
function operationRoot(t: ChannelTarget, name: string): string | undefined {
  const m = OPERATION.exec(name);
  if (!m) return undefined;
  const region = /\/locations\/([^/]+)\//.exec(name)![1]!;
  if (!isVertexRegion(region)) return undefined;
  return `${trimBase(t.baseUrl || host(region))}/v1/${m[1]}`;
}

async function fetchOperation(t: ChannelTarget, name: string, timeoutMs: number) {
  const root = operationRoot(t, name);
  if (!root) return undefined;
  return videoCall(t, { method: 'POST', url: `${root}:fetchPredictOperation`, headers: await bearer(t), body: { operationName: name }, timeoutMs });
}

/**
 * Google Veo on Vertex AI (type 41), with the channel's service-account key (the same token
 * exchange as its chat): `POST …/models/{model}:predictLongRunning`, then `:fetchPredictOperation`
 * with the operation's name. Without a storage bucket the finished video comes back as bytes in
 * the operation, which is never stored: the content route fetches the operation again and decodes
 * it. A gs:// result is read through the Cloud Storage JSON API with the same token.
 */
export const vertexVideoProvider: VideoProvider = {
  slug: 'veo-vertex',
  types: [ChannelType.VertexAI],
  urls: 'credentialed',
  plan: veoPlan,
  async submit(target, req, plan, timeoutMs, io) {
    const body = await veoBody(req, plan, io, true);
    const r = await videoCall(target, { method: 'POST', url: `${modelUrl(target, req.upstreamModel)}:predictLongRunning`, headers: await bearer(target), body, timeoutMs });
    if (r.status !== 200) throw googleError(r);
    if (!isRecord(r.json) || typeof r.json.name !== 'string' || !OPERATION.test(r.json.name)) throw unexpected(r);
    return r.json.name;
  },
  async poll(target, name, timeoutMs) {
    const r = await fetchOperation(target, name, timeoutMs);
    if (!r) return { state: 'failure', error: { code: 'bad_operation', message: `not an operation name: ${name.slice(0, 100)}` } };
    if (r.status === 404) return { state: 'failure', error: { code: 'NOT_FOUND', message: googleError(r).message } };
    if (r.status !== 200 || !isRecord(r.json)) return null;
    return vertexOperationStatus(r.json as unknown as VertexVideoOperation);
  },
  async source(target, name, stored, timeoutMs): Promise<VideoSource> {
    if (stored.url?.startsWith('gs://')) {
      const [, bucket, object] = /^gs:\/\/([^/]+)\/(.+)$/.exec(stored.url) ?? [];
      if (!bucket || !object) throw new Error('not a Cloud Storage object');
      return { kind: 'channel', url: `https://storage.googleapis.com/download/storage/v1/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(object)}?alt=media`, headers: await bearer(target) };
    }
    const r = await fetchOperation(target, name, timeoutMs);
    const v = r?.status === 200 && isRecord(r.json) ? (r.json as unknown as VertexVideoOperation).response?.videos?.[0] : undefined;
    if (!v?.bytesBase64Encoded) throw new Error(`the operation no longer holds the video (${r?.status ?? 'no answer'})`);
    return { kind: 'bytes', data: Buffer.from(v.bytesBase64Encoded, 'base64'), mimeType: v.mimeType ?? 'video/mp4' };
  },
};

export const videoProviders = [vertexVideoProvider];
