import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { isRecord, MODERATION_WORD, newControls, newJob, phaseOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeWan = ListeningFake & VideoFakeControls;

const refuse = (res: ServerResponse, status: number, code: string, message: string) => sendJson(res, status, { request_id: randomUUID(), code, message });

/**
 * DashScope's asynchronous video synthesis on loopback (Alibaba Wan): the submit needs
 * `X-DashScope-Async: enable` and a Bearer key; text to video takes `parameters.size` (`w*h`),
 * image to video `input.img_url` and `parameters.resolution`; `GET /api/v1/tasks/{id}` answers the
 * documented task shapes. `forbidden` is refused DataInspectionFailed; `explode` ends FAILED.
 */
export async function startFakeWan(opts: VideoFakeOptions = {}): Promise<FakeWan> {
  const stepMs = opts.stepMs ?? 100;
  const c = newControls();
  const task = (job: FakeVideoJob) => {
    const phase = phaseOf(job, stepMs);
    const name = phase === 'succeeded' ? 'task.succeeded.response' : phase === 'failed' ? 'task.failed.response' : phase === 'running' ? 'task.running.response' : 'create.response';
    const reply = providerFixture('wan', name).body as { output: Record<string, unknown>; usage?: Record<string, unknown> };
    const output: Record<string, unknown> = { ...reply.output, task_id: job.id };
    if (phase === 'succeeded') output.video_url = c.videoUrl ?? `${listening.url}/oss/${job.id}.mp4?Expires=${Math.floor(Date.now() / 1000) + 86_400}`;
    return { ...reply, request_id: randomUUID(), output, ...(reply.usage ? { usage: { ...reply.usage, video_duration: job.seconds, video_ratio: job.size } } : {}) };
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body } = await record(c, req);
    const path = url.pathname;
    if (path.startsWith('/oss/')) return sendVideo(c, res);
    if (c.down) return refuse(res, 503, 'ServiceUnavailable', 'Service is unavailable.');
    if (opts.key && req.headers.authorization !== `Bearer ${opts.key}`) return refuse(res, 401, 'InvalidApiKey', 'Invalid API-key provided.');
    if (path === '/api/v1/services/aigc/video-generation/video-synthesis' && req.method === 'POST') {
      if (req.headers['x-dashscope-async'] !== 'enable') return refuse(res, 403, 'AccessDenied', 'current user api does not support synchronous calls');
      if (!isRecord(body) || !isRecord(body.input) || !text(body.input.prompt)) return refuse(res, 400, 'InvalidParameter', 'input.prompt is required');
      const p = isRecord(body.parameters) ? body.parameters : {};
      const i2v = text(body.input.img_url) !== '';
      if (i2v ? !/^(480|720|1080)P$/.test(text(p.resolution)) : !/^\d+\*\d+$/.test(text(p.size) || '1920*1080')) return refuse(res, 400, 'InvalidParameter', 'size or resolution is invalid');
      if (text(body.input.prompt).includes(MODERATION_WORD)) return sendJson(res, 400, providerFixture('wan', 'error.data-inspection').body);
      const job = newJob(c, { model: text(body.model), prompt: text(body.input.prompt), seconds: Number(p.duration ?? 5), size: i2v ? text(p.resolution) : text(p.size) || '1920*1080', body });
      return sendJson(res, 200, task(job));
    }
    const one = /^\/api\/v1\/tasks\/([\w-]+)$/.exec(path);
    const job = one ? c.jobs.get(one[1]!) : undefined;
    if (job && req.method === 'GET') return sendJson(res, 200, task(job));
    if (one) return sendJson(res, 200, { request_id: randomUUID(), output: { task_id: one[1], task_status: 'UNKNOWN' } });
    return refuse(res, 404, 'NotFound', 'Not found.');
  };
  const listening = await serveFake(opts, handle, (res) => refuse(res, 500, 'InternalError', 'An internal error has occured.'));
  return Object.assign(c, listening);
}
