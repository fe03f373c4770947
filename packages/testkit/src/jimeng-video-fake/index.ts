import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { isRecord, MODERATION_WORD, newControls, newJob, phaseOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeJimeng = ListeningFake & VideoFakeControls & { signatures: number };

/** `AccessKeyId|SecretAccessKey` the fake accepts (its `key` option, or this). */
export const FAKE_JIMENG_KEY = 'AKLTfakejimeng01|WmpFakeJimengSecret01';

const envelope = (res: ServerResponse, status: number, code: number, message: string, data: unknown = null) =>
  sendJson(res, status, { code, data, message, request_id: randomBytes(12).toString('hex').toUpperCase(), status: code, time_elapsed: '1.0ms' });

/**
 * Volcengine's signature checked from the request as received: the canonical request rebuilt from
 * the method, path, query, the headers named in SignedHeaders and the body, the key derived from
 * the secret by the credential scope. Undefined when it holds; else why not.
 */
function signatureProblem(req: IncomingMessage, url: URL, body: string, key: string): string | undefined {
  const [ak, sk] = key.split('|');
  const m = /^HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/request, SignedHeaders=([\w;-]+), Signature=([0-9a-f]{64})$/.exec(String(req.headers.authorization ?? ''));
  if (!m) return 'MissingAuthenticationToken';
  const [, id, day, region, service, signed, signature] = m;
  if (id !== ak || region !== 'cn-north-1' || service !== 'cv') return 'InvalidCredential';
  const hash = createHash('sha256').update(body).digest('hex');
  if (req.headers['x-content-sha256'] !== hash) return 'ContentSha256Mismatch';
  const xDate = String(req.headers['x-date'] ?? '');
  if (!xDate.startsWith(day!) || Math.abs(Date.parse(`${xDate.slice(0, 4)}-${xDate.slice(4, 6)}-${xDate.slice(6, 8)}T${xDate.slice(9, 11)}:${xDate.slice(11, 13)}:${xDate.slice(13, 15)}Z`) - Date.now()) > 15 * 60_000) return 'SignatureExpired';
  const q = [...url.searchParams].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).sort().join('&');
  const names = signed!.split(';');
  const headerText = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim()}\n`).join('');
  const canonical = `${req.method}\n${url.pathname}\n${q}\n${headerText}\n${signed}\n${hash}`;
  const scope = `${day}/${region}/${service}/request`;
  const toSign = `HMAC-SHA256\n${xDate}\n${scope}\n${createHash('sha256').update(canonical).digest('hex')}`;
  let k: Buffer = createHmac('sha256', sk!).update(day!).digest();
  for (const part of [region!, service!, 'request']) k = createHmac('sha256', k).update(part).digest();
  return createHmac('sha256', k).update(toSign).digest('hex') === signature ? undefined : 'SignatureDoesNotMatch';
}

/**
 * Jimeng on Volcengine's visual API, on loopback: `POST /?Action=CVSync2AsyncSubmitTask` and
 * `…CVSync2AsyncGetResult` (Version 2022-08-31), each signed HMAC-SHA256 and checked here, the
 * `{code, data, message}` envelope from Volcengine's documented answers. `forbidden` is refused
 * 50412 (text risk); `explode` ends in 50500.
 */
export async function startFakeJimeng(opts: VideoFakeOptions = {}): Promise<FakeJimeng> {
  const stepMs = opts.stepMs ?? 100;
  const key = opts.key ?? FAKE_JIMENG_KEY;
  const c = Object.assign(newControls(), { signatures: 0 });
  const result = (res: ServerResponse, job: FakeVideoJob) => {
    const phase = phaseOf(job, stepMs);
    if (phase === 'failed') return envelope(res, 200, 50500, 'Internal Error');
    if (phase === 'succeeded') {
      const b = providerFixture('jimeng', 'result.done.response').body as { data: Record<string, unknown> };
      return sendJson(res, 200, { ...b, data: { ...b.data, video_url: c.videoUrl ?? `${listening.url}/cdn/${job.id}.mp4?x-expires=${Math.floor(Date.now() / 1000) + 3600}` } });
    }
    const b = providerFixture('jimeng', 'result.generating.response').body as { data: Record<string, unknown> };
    return sendJson(res, 200, { ...b, data: { status: phase === 'queued' ? 'in_queue' : 'generating' } });
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body, text: raw } = await record(c, req);
    if (url.pathname.startsWith('/cdn/')) return sendVideo(c, res);
    if (c.down) return envelope(res, 503, 50500, 'Service Unavailable');
    const problem = signatureProblem(req, url, raw, key);
    if (problem) return sendJson(res, 401, { ResponseMetadata: { RequestId: randomBytes(8).toString('hex'), Action: url.searchParams.get('Action'), Version: url.searchParams.get('Version'), Service: 'cv', Region: 'cn-north-1', Error: { Code: problem, Message: 'The request signature we calculated does not match the signature you provided.' } } });
    c.signatures += 1;
    if (req.method !== 'POST' || url.searchParams.get('Version') !== '2022-08-31' || !isRecord(body)) return envelope(res, 400, 50400, 'Invalid Request');
    const action = url.searchParams.get('Action');
    if (action === 'CVSync2AsyncSubmitTask') {
      if (!text(body.req_key)) return envelope(res, 400, 50400, 'req_key is required');
      const frames = Number(body.frames ?? 121);
      if (frames !== 121 && frames !== 241) return envelope(res, 400, 50400, 'frames must be 121 or 241');
      if (text(body.prompt).includes(MODERATION_WORD)) return sendJson(res, 400, providerFixture('jimeng', 'error.text-risk').body);
      const job = newJob(c, { id: String(7_392_616_336_519_610_409n + BigInt(c.jobs.size + 1)), model: text(body.req_key), prompt: text(body.prompt), seconds: (frames - 1) / 24, size: text(body.aspect_ratio), body });
      const b = providerFixture('jimeng', 'submit.response').body as Record<string, unknown>;
      return sendJson(res, 200, { ...b, data: { task_id: job.id } });
    }
    if (action === 'CVSync2AsyncGetResult') {
      const job = c.jobs.get(text(body.task_id));
      if (!job || job.model !== text(body.req_key)) return envelope(res, 200, 10000, 'Success', { status: 'not_found' });
      return result(res, job);
    }
    return envelope(res, 400, 50400, `unknown Action ${action}`);
  };
  const listening = await serveFake(opts, handle, (res) => envelope(res, 500, 50500, 'Internal Error'));
  return Object.assign(c, listening);
}
