import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { isRecord, MODERATION_WORD, newControls, newJob, phaseOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeKling = ListeningFake & VideoFakeControls;

/** `AccessKey|SecretKey` the fake accepts (its `key` option, or this). */
export const FAKE_KLING_KEY = 'AKfakekling01|SKfakeklingsecret01';

const refuse = (res: ServerResponse, status: number, code: number, message: string) => sendJson(res, status, { code, message, request_id: randomBytes(8).toString('base64url') });

/** The Bearer JWT checked as Kling documents it: HS256 over the access key as issuer, within nbf–exp. */
function jwtProblem(header: string | undefined, key: string): string | undefined {
  const [ak, sk] = key.split('|');
  const token = (header ?? '').replace(/^Bearer /, '');
  const [h, p, sig] = token.split('.');
  if (!h || !p || !sig) return 'Authorization is empty or not a JWT';
  const want = createHmac('sha256', sk!).update(`${h}.${p}`).digest();
  const got = Buffer.from(sig, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return 'Authorization is invalid';
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { iss?: string; exp?: number; nbf?: number };
  const now = Math.floor(Date.now() / 1000);
  if (claims.iss !== ak) return 'Authorization is invalid';
  if (typeof claims.exp !== 'number' || claims.exp < now) return 'Authorization is expired';
  if (typeof claims.nbf === 'number' && claims.nbf > now) return 'Authorization is not yet valid';
  return undefined;
}

/**
 * Kling's video API on loopback: `POST /v1/videos/{text2video|image2video}` and `GET
 * /v1/videos/{kind}/{id}`, an HS256 JWT per request, the `{code, message, request_id, data}`
 * envelope built from Kling's documented answers. `forbidden` in a prompt is refused with 1301;
 * `explode` ends `failed`.
 */
export async function startFakeKling(opts: VideoFakeOptions = {}): Promise<FakeKling> {
  const stepMs = opts.stepMs ?? 100;
  const key = opts.key ?? FAKE_KLING_KEY;
  const c = newControls();
  const task = (job: FakeVideoJob, kind: string) => {
    const phase = phaseOf(job, stepMs);
    const name = phase === 'succeeded' ? 'query.succeed.response' : phase === 'failed' ? 'query.failed.response' : phase === 'running' ? 'query.processing.response' : 'submit.response';
    const env = providerFixture('kling', name).body as { data: Record<string, unknown> };
    const data: Record<string, unknown> = { ...env.data, task_id: job.id, created_at: job.createdAt, updated_at: Date.now() };
    if (phase === 'succeeded') data.task_result = { videos: [{ id: `${job.id}-0`, url: c.videoUrl ?? `${listening.url}/cdn/${kind}/${job.id}-0.mp4`, duration: String(job.seconds) }] };
    return { ...env, data };
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body } = await record(c, req);
    const path = url.pathname;
    if (path.startsWith('/cdn/')) return sendVideo(c, res);
    if (c.down) return refuse(res, 503, 5001, 'Server is temporarily unavailable');
    const problem = jwtProblem(req.headers.authorization, key);
    if (problem) return refuse(res, 401, 1002, problem);
    const submit = /^\/v1\/videos\/(text2video|image2video)$/.exec(path);
    if (submit && req.method === 'POST') {
      if (!isRecord(body)) return refuse(res, 400, 1201, 'Invalid request parameters');
      if (submit[1] === 'image2video' && !text(body.image)) return refuse(res, 400, 1201, 'image is required');
      if (!['5', '10'].includes(text(body.duration) || '5')) return refuse(res, 400, 1201, 'duration must be 5 or 10');
      if (!['std', 'pro', ''].includes(text(body.mode))) return refuse(res, 400, 1201, 'mode must be std or pro');
      if (text(body.prompt).includes(MODERATION_WORD)) return sendJson(res, 400, providerFixture('kling', 'error.content-security').body);
      const job = newJob(c, { id: randomBytes(12).toString('base64url'), model: text(body.model_name) || 'kling-v1', prompt: text(body.prompt), seconds: Number(text(body.duration) || 5), size: text(body.mode) || 'std', body });
      return sendJson(res, 200, task(job, submit[1]!));
    }
    const query = /^\/v1\/videos\/(text2video|image2video)\/([\w-]+)$/.exec(path);
    const job = query ? c.jobs.get(query[2]!) : undefined;
    if (job && req.method === 'GET') return sendJson(res, 200, task(job, query![1]!));
    return refuse(res, 404, 1203, 'The requested resource does not exist');
  };
  const listening = await serveFake(opts, handle, (res) => refuse(res, 500, 5000, 'Internal server error'));
  return Object.assign(c, listening);
}
