import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { isRecord, MODERATION_WORD, newControls, newJob, phaseOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeVidu = ListeningFake & VideoFakeControls;

const refuse = (res: ServerResponse, status: number, reason: string, message: string) => sendJson(res, status, { code: status, reason, message, metadata: {} });

/**
 * Vidu's enterprise API on loopback: `POST /ent/v2/{text2video|img2video|start-end2video}` and
 * `GET /ent/v2/tasks/{id}/creations`, `Authorization: Token {key}`, built from Vidu's documented
 * answers. Vidu audits the creation: `forbidden` ends failed AuditSubmitIllegal, `explode` failed.
 */
export async function startFakeVidu(opts: VideoFakeOptions = {}): Promise<FakeVidu> {
  const stepMs = opts.stepMs ?? 100;
  const c = newControls();
  let seq = 870_733_513_279_782_912n;
  const creations = (job: FakeVideoJob) => {
    const phase = phaseOf(job, stepMs);
    const name = phase === 'succeeded' ? (job.prompt.includes(MODERATION_WORD) ? 'creations.audit.response' : 'creations.success.response') : phase === 'failed' ? 'creations.failed.response' : 'creations.processing.response';
    const b = providerFixture('vidu', name).body as Record<string, unknown>;
    const out: Record<string, unknown> = { ...b, id: job.id, ...(phase === 'queued' ? { state: 'queueing' } : {}) };
    if (name === 'creations.success.response') out.creations = [{ id: `${job.id}-1`, url: c.videoUrl ?? `${listening.url}/s3/${job.id}/video.mp4?X-Amz-Expires=3600`, cover_url: `${listening.url}/s3/${job.id}/cover.jpeg` }];
    return out;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body } = await record(c, req);
    const path = url.pathname;
    if (path.startsWith('/s3/')) return sendVideo(c, res);
    if (c.down) return refuse(res, 503, 'ServiceUnavailable', 'service unavailable');
    if (opts.key && req.headers.authorization !== `Token ${opts.key}`) return sendJson(res, 401, providerFixture('vidu', 'error.unauthorized').body);
    const submit = /^\/ent\/v2\/(text2video|img2video|start-end2video)$/.exec(path);
    if (submit && req.method === 'POST') {
      if (!isRecord(body) || !text(body.model)) return refuse(res, 400, 'BadRequest', 'model is required');
      const images = Array.isArray(body.images) ? body.images : [];
      if ((submit[1] === 'img2video' && images.length !== 1) || (submit[1] === 'start-end2video' && images.length !== 2)) return refuse(res, 400, 'BadRequest', 'images do not fit the endpoint');
      if (submit[1] === 'text2video' && !text(body.prompt)) return refuse(res, 400, 'BadRequest', 'prompt is required');
      const job = newJob(c, { id: String(++seq), model: text(body.model), prompt: text(body.prompt), seconds: Number(body.duration ?? 4), size: text(body.resolution), body });
      const r = providerFixture('vidu', 'text2video.response').body as Record<string, unknown>;
      return sendJson(res, 200, { ...r, task_id: job.id, model: job.model, prompt: job.prompt, duration: job.seconds, resolution: job.size, created_at: new Date().toISOString() });
    }
    const one = /^\/ent\/v2\/tasks\/(\d+)\/creations$/.exec(path);
    const job = one ? c.jobs.get(one[1]!) : undefined;
    if (job && req.method === 'GET') return sendJson(res, 200, creations(job));
    return refuse(res, 404, 'NotFound', 'task not found');
  };
  const listening = await serveFake(opts, handle, (res) => refuse(res, 500, 'InternalError', 'internal error'));
  return Object.assign(c, listening);
}
