import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { isRecord, MODERATION_WORD, newControls, newJob, phaseOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeSeedance = ListeningFake & VideoFakeControls;

const arkError = (res: ServerResponse, status: number, code: string, message: string, type = 'BadRequest') => sendJson(res, status, { error: { code, message, param: '', type } });

/**
 * Volcengine Ark's video tasks on loopback (Doubao Seedance): `POST /api/v3/contents/generations/tasks`
 * and `GET …/tasks/{id}`, Bearer key, Ark's error objects, tasks built from Ark's documented
 * answers. `forbidden` in the prompt text is refused InputTextSensitiveContentDetected; `explode`
 * ends `failed`.
 */
export async function startFakeSeedance(opts: VideoFakeOptions = {}): Promise<FakeSeedance> {
  const stepMs = opts.stepMs ?? 100;
  const c = newControls();
  const task = (job: FakeVideoJob) => {
    const phase = phaseOf(job, stepMs);
    const name = phase === 'succeeded' ? 'task.succeeded.response' : phase === 'failed' ? 'task.failed.response' : 'task.running.response';
    const t = providerFixture('seedance', name).body as Record<string, unknown>;
    const body = job.body as Record<string, unknown>;
    const out: Record<string, unknown> = { ...t, id: job.id, model: job.model, created_at: Math.floor(job.createdAt / 1000), updated_at: Math.floor(Date.now() / 1000) };
    if (phase === 'queued') out.status = 'queued';
    if (phase === 'succeeded') Object.assign(out, { content: { video_url: c.videoUrl ?? `${listening.url}/tos/${job.id}.mp4?X-Tos-Signature=${randomBytes(6).toString('hex')}` }, resolution: body.resolution, ratio: body.ratio, duration: body.duration });
    return out;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body } = await record(c, req);
    const path = url.pathname;
    if (path.startsWith('/tos/')) return sendVideo(c, res);
    if (c.down) return arkError(res, 503, 'ServiceUnavailable', 'The service is currently unavailable.', 'ServiceUnavailable');
    if (opts.key && req.headers.authorization !== `Bearer ${opts.key}`) return arkError(res, 401, 'AuthenticationError', 'The API key in the request is missing or invalid.', 'Unauthorized');
    if (path === '/api/v3/contents/generations/tasks' && req.method === 'POST') {
      if (!isRecord(body) || !Array.isArray(body.content)) return arkError(res, 400, 'MissingParameter', 'The request failed because it is missing one or multiple required parameters: content.');
      const prompt = body.content.filter(isRecord).map((p) => text(p.text)).join(' ');
      if (/--(rs|resolution|dur|duration)\b/.test(prompt)) return arkError(res, 400, 'InvalidParameter', 'text commands are given as fields here');
      if (prompt.includes(MODERATION_WORD)) return sendJson(res, 400, providerFixture('seedance', 'error.input-sensitive').body);
      if (![5, 10].includes(Number(body.duration ?? 5))) return arkError(res, 400, 'InvalidParameter', 'The parameter `duration` specified in the request is not valid.');
      const job = newJob(c, { id: `cgt-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`, model: text(body.model), prompt, seconds: Number(body.duration ?? 5), size: text(body.resolution), body });
      return sendJson(res, 200, { id: job.id });
    }
    const one = /^\/api\/v3\/contents\/generations\/tasks\/([\w-]+)$/.exec(path);
    const job = one ? c.jobs.get(one[1]!) : undefined;
    if (job && req.method === 'GET') return sendJson(res, 200, task(job));
    return arkError(res, 404, 'NotFound', `The specified resource is not found: ${path}`, 'NotFound');
  };
  const listening = await serveFake(opts, handle, (res) => arkError(res, 500, 'InternalServiceError', 'The service encountered an unexpected internal error.', 'InternalServerError'));
  return Object.assign(c, listening);
}
