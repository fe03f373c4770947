import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { isRecord, MODERATION_WORD, newControls, newJob, phaseOf, progressOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeSora = ListeningFake & VideoFakeControls;

const SECONDS = ['4', '8', '12'];
const SIZES: Record<string, string[]> = { 'sora-2': ['720x1280', '1280x720'], 'sora-2-pro': ['720x1280', '1280x720', '1024x1792', '1792x1024'] };

const openAIError = (res: ServerResponse, status: number, message: string, code: string | null, param: string | null = null) =>
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code } });

/** A job as OpenAI's VideoResource, shaped by the documented answers (sora fixtures). */
function video(job: FakeVideoJob, stepMs: number): Record<string, unknown> {
  const phase = phaseOf(job, stepMs);
  const name = phase === 'succeeded' ? 'retrieve.completed.response' : phase === 'failed' ? 'retrieve.failed.response' : phase === 'running' ? 'retrieve.in-progress.response' : 'create.response';
  const v = providerFixture('sora', name).body as Record<string, unknown>;
  const created = Math.floor(job.createdAt / 1000);
  const done = Math.floor((job.createdAt + 3 * stepMs) / 1000);
  return {
    ...v,
    id: job.id,
    model: job.model,
    prompt: job.prompt,
    seconds: String(job.seconds),
    size: job.size,
    progress: phase === 'running' ? progressOf(job, stepMs) : v.progress,
    created_at: created,
    completed_at: phase === 'succeeded' || phase === 'failed' ? done : null,
    expires_at: phase === 'succeeded' ? done + 86_400 : null,
  };
}

/**
 * OpenAI's Videos API on loopback (Sora): `POST /v1/videos` (the JSON create body), `GET
 * /v1/videos/{id}`, `GET /v1/videos/{id}/content`, `DELETE /v1/videos/{id}`, Bearer key, OpenAI's
 * error objects. A prompt with `forbidden` is refused `moderation_blocked`; one with `explode` fails.
 */
export async function startFakeSora(opts: VideoFakeOptions = {}): Promise<FakeSora> {
  const stepMs = opts.stepMs ?? 100;
  const c = newControls();
  let seq = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body } = await record(c, req);
    if (c.down) return openAIError(res, 503, 'The server is overloaded', null);
    if (opts.key && req.headers.authorization !== `Bearer ${opts.key}`) return openAIError(res, 401, 'Incorrect API key provided.', 'invalid_api_key');
    const path = url.pathname;
    if (req.method === 'POST' && path === '/v1/videos') {
      if (!isRecord(body)) return openAIError(res, 400, 'We could not parse the JSON body of your request.', null);
      const model = text(body.model) || 'sora-2';
      const sizes = SIZES[model];
      if (!sizes) return openAIError(res, 400, `Invalid model: ${model}`, 'invalid_value', 'model');
      if (!text(body.prompt)) return openAIError(res, 400, 'Missing required parameter: prompt.', 'missing_required_parameter', 'prompt');
      const seconds = text(body.seconds) || '4';
      if (!SECONDS.includes(seconds)) return openAIError(res, 400, `Invalid value: '${seconds}'. Supported values are: '4', '8', and '12'.`, 'invalid_value', 'seconds');
      const size = text(body.size) || '720x1280';
      if (!sizes.includes(size)) return openAIError(res, 400, `Invalid value: '${size}'.`, 'invalid_value', 'size');
      if (text(body.prompt).includes(MODERATION_WORD)) return sendJson(res, 400, providerFixture('sora', 'error.moderation').body);
      const job = newJob(c, { id: `video_${Date.now().toString(16)}${(++seq).toString(16).padStart(4, '0')}`, model, prompt: text(body.prompt), seconds: Number(seconds), size, body });
      return sendJson(res, 200, video(job, stepMs));
    }
    const m = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
    const job = m ? c.jobs.get(decodeURIComponent(m[1]!)) : undefined;
    if (m && !job) return openAIError(res, 404, `Video with id '${m[1]}' not found.`, null);
    if (job && m?.[2] && req.method === 'GET') {
      if (phaseOf(job, stepMs) !== 'succeeded') return openAIError(res, 404, 'Video is not ready yet.', null);
      if (c.videoUrl) {
        res.writeHead(302, { location: c.videoUrl });
        return void res.end();
      }
      return sendVideo(c, res);
    }
    if (job && req.method === 'GET') return sendJson(res, 200, video(job, stepMs));
    if (job && req.method === 'DELETE') {
      c.jobs.delete(job.id);
      return sendJson(res, 200, { id: job.id, object: 'video.deleted', deleted: true });
    }
    return openAIError(res, 404, `Invalid URL (${req.method} ${path})`, null);
  };
  const listening = await serveFake(opts, handle, (res) => openAIError(res, 500, 'The server had an error processing your request.', null));
  return Object.assign(c, listening);
}
