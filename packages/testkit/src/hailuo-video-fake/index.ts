import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { isRecord, MODERATION_WORD, newControls, newJob, phaseOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeHailuo = ListeningFake & VideoFakeControls;

const baseResp = (res: ServerResponse, code: number, msg: string, extra: Record<string, unknown> = {}) => sendJson(res, 200, { ...extra, base_resp: { status_code: code, status_msg: msg } });

/**
 * MiniMax's video generation on loopback (Hailuo): `POST /v1/video_generation`, `GET
 * /v1/query/video_generation?task_id=`, `GET /v1/files/retrieve?file_id=` (a fresh download URL
 * each time), Bearer key, errors in `base_resp` with HTTP 200 as MiniMax answers them. `forbidden`
 * is refused 1026; `explode` ends `Fail`.
 */
export async function startFakeHailuo(opts: VideoFakeOptions = {}): Promise<FakeHailuo> {
  const stepMs = opts.stepMs ?? 100;
  const c = newControls();
  let seq = 106_916_112_212_032;
  const query = (job: FakeVideoJob) => {
    const phase = phaseOf(job, stepMs);
    const name = phase === 'succeeded' ? 'query.success.response' : phase === 'failed' ? 'query.fail.response' : 'query.processing.response';
    const q = providerFixture('hailuo', name).body as Record<string, unknown>;
    return { ...q, task_id: job.id, ...(phase === 'queued' ? { status: 'Queueing' } : {}), ...(phase === 'succeeded' ? { file_id: `f${job.id}` } : {}) };
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body } = await record(c, req);
    const path = url.pathname;
    if (path.startsWith('/files/')) return sendVideo(c, res);
    if (c.down) return sendJson(res, 503, { base_resp: { status_code: 1001, status_msg: 'service unavailable' } });
    if (opts.key && req.headers.authorization !== `Bearer ${opts.key}`) return baseResp(res, 1004, 'login fail: Please carry the API secret key in the Authorization field of the request header');
    if (path === '/v1/video_generation' && req.method === 'POST') {
      if (!isRecord(body) || !text(body.model)) return baseResp(res, 2013, 'invalid params, model is required', { task_id: '' });
      const duration = Number(body.duration ?? 6);
      const resolution = text(body.resolution) || '768P';
      if (![6, 10].includes(duration) || !['512P', '720P', '768P', '1080P'].includes(resolution) || (resolution === '1080P' && duration === 10)) return baseResp(res, 2013, 'invalid params, duration or resolution', { task_id: '' });
      if (text(body.prompt).includes(MODERATION_WORD)) return sendJson(res, 200, providerFixture('hailuo', 'error.sensitive').body);
      const job = newJob(c, { id: String(++seq), model: text(body.model), prompt: text(body.prompt), seconds: duration, size: resolution, body });
      return sendJson(res, 200, { ...(providerFixture('hailuo', 'create.response').body as object), task_id: job.id });
    }
    if (path === '/v1/query/video_generation' && req.method === 'GET') {
      const job = c.jobs.get(url.searchParams.get('task_id') ?? '');
      return job ? sendJson(res, 200, query(job)) : baseResp(res, 2013, 'task not found', { task_id: url.searchParams.get('task_id'), status: 'Fail' });
    }
    if (path === '/v1/files/retrieve' && req.method === 'GET') {
      const id = (url.searchParams.get('file_id') ?? '').slice(1);
      const job = c.jobs.get(id);
      if (!job || phaseOf(job, stepMs) !== 'succeeded') return baseResp(res, 1000, 'file not found');
      const f = providerFixture('hailuo', 'file.response').body as { file: Record<string, unknown> };
      return sendJson(res, 200, { ...f, file: { ...f.file, file_id: `f${id}`, download_url: c.videoUrl ?? `${listening.url}/files/${id}.mp4?Expires=${Math.floor(Date.now() / 1000) + 9 * 3600}` } });
    }
    return baseResp(res, 1000, `not found: ${path}`);
  };
  const listening = await serveFake(opts, handle, (res) => baseResp(res, 1000, 'unknown error'));
  return Object.assign(c, listening);
}
