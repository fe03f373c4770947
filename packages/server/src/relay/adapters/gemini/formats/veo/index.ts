import { VideoUpstreamError, type VideoIO, type VideoPlan, type VideoRequest, type VideoStatus } from '../../../../video/video-types.js';
import { checkImages, pickSeconds, pickSize, planOf } from '../../../../video/video-plan.js';
import { isRecord, textOf, unexpected, type VideoReply } from '../../../../video/video-http.js';
import type { GeminiVideoOperation, VeoImage, VeoRequest, VertexVideoOperation } from './wire-types.js';

/**
 * Veo, as both Google surfaces speak it: the same `instances`/`parameters` request, a long-running
 * operation to poll, and results that differ in shape (the Gemini API answers a file URI that needs
 * the key, Vertex AI the bytes themselves or a gs:// object). Durations and tiers by model
 * generation (Veo 2: 5–8 s at 720p; Veo 3: 8 s; Veo 3.1: 4, 6 or 8 s; 1080p from Veo 3 on).
 */

const SIZES_720 = ['1280x720', '720x1280'];
const SIZES_1080 = [...SIZES_720, '1920x1080', '1080x1920'];

function generation(model: string): 2 | 3 | 31 {
  if (model.startsWith('veo-2')) return 2;
  if (model.startsWith('veo-3.1')) return 31;
  return 3;
}

export function veoPlan(req: VideoRequest): VideoPlan {
  checkImages(req, 1);
  const gen = generation(req.upstreamModel);
  const seconds = pickSeconds(req.seconds, gen === 2 ? [5, 6, 7, 8] : gen === 31 ? [4, 6, 8] : [8], 8);
  const size = pickSize(req.size, gen === 2 ? SIZES_720 : SIZES_1080);
  return planOf(seconds, size);
}

/** The request body; the first reference image goes inline (Veo takes no image URLs). */
export async function veoBody(req: VideoRequest, plan: VideoPlan, io: VideoIO, vertex: boolean): Promise<VeoRequest> {
  const [w, h] = plan.size.split('x').map(Number);
  const extras = isRecord(req.extras.parameters) ? req.extras.parameters : {};
  const parameters: VeoRequest['parameters'] = {
    ...(extras as VeoRequest['parameters']),
    aspectRatio: w! >= h! ? '16:9' : '9:16',
    durationSeconds: plan.seconds,
    // One video per task: the bill is for one.
    sampleCount: 1,
  };
  if (generation(req.upstreamModel) !== 2) parameters.resolution = plan.resolution === '1080p' ? '1080p' : '720p';
  if (req.negativePrompt) parameters.negativePrompt = req.negativePrompt;
  if (vertex && req.seed !== undefined) parameters.seed = req.seed;
  if (!vertex) delete parameters.storageUri;
  const instance: VeoRequest['instances'][number] = { prompt: req.prompt };
  if (req.images[0]) {
    const img = await io.imageBytes(req.images[0]);
    instance.image = { bytesBase64Encoded: img.base64, mimeType: img.mimeType } satisfies VeoImage;
  }
  return { instances: [instance], parameters };
}

/** Google's error body (`{error: {code, message, status}}`) as a refusal. */
export function googleError(r: VideoReply): VideoUpstreamError {
  const e = isRecord(r.json) && isRecord(r.json.error) ? r.json.error : undefined;
  if (!e) return unexpected(r);
  const message = textOf(e.message) || textOf(e.status) || 'error';
  return new VideoUpstreamError(r.status, textOf(e.status) || String(r.status), message, /safety|responsible ai|violat|blocked/i.test(message));
}

function filtered(count: unknown, reasons: unknown): VideoStatus | undefined {
  if (typeof count !== 'number' || count < 1) return undefined;
  const message = Array.isArray(reasons) && reasons.length ? reasons.map(String).join(' ') : 'The video was filtered by responsible AI practices.';
  return { state: 'failure', error: { code: 'rai_media_filtered', message, moderation: true } };
}

function failed(op: { error?: unknown }): VideoStatus | undefined {
  if (!isRecord(op.error)) return undefined;
  return { state: 'failure', error: { code: textOf(op.error.status) || String(op.error.code ?? 'error'), message: textOf(op.error.message) || 'video generation failed' } };
}

/** A Gemini API operation: pending until `done`; then the first sample's file URI, or why there is none. */
export function geminiOperationStatus(op: GeminiVideoOperation): VideoStatus {
  if (!op.done) return { state: 'in_progress' };
  const err = failed(op);
  if (err) return err;
  const r = op.response?.generateVideoResponse;
  const uri = r?.generatedSamples?.[0]?.video?.uri;
  if (uri) return { state: 'success', url: uri };
  return filtered(r?.raiMediaFilteredCount, r?.raiMediaFilteredReasons) ?? { state: 'failure', error: { code: 'no_video', message: 'the operation finished without a video' } };
}

/** A Vertex AI operation: the bytes are kept out of the status (the content route asks again). */
export function vertexOperationStatus(op: VertexVideoOperation): VideoStatus {
  if (!op.done) return { state: 'in_progress' };
  const err = failed(op);
  if (err) return err;
  const v = op.response?.videos?.[0];
  if (v?.gcsUri) return { state: 'success', url: v.gcsUri };
  if (v?.bytesBase64Encoded) return { state: 'success' };
  return filtered(op.response?.raiMediaFilteredCount, op.response?.raiMediaFilteredReasons) ?? { state: 'failure', error: { code: 'no_video', message: 'the operation finished without a video' } };
}

