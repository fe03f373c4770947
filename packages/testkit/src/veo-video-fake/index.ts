import { createVerify, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { tokenAnswer } from '../vertex-fake/documented.js';
import { makeServiceAccount } from '../vertex-fake/service-account.js';
import { FAKE_MP4, isRecord, MODERATION_WORD, newControls, newJob, phaseOf, record, sendJson, sendVideo, text, type FakeVideoJob, type VideoFakeControls, type VideoFakeOptions } from '../video-fake-common/index.js';

export type FakeVeo = ListeningFake &
  VideoFakeControls & {
    /** A service-account key whose token_uri is this fake (for a Vertex AI channel). */
    serviceAccount: string;
  };

const googleError = (res: ServerResponse, code: number, status: string, message: string) => sendJson(res, code, { error: { code, message, status } });

/**
 * Google Veo on loopback, both surfaces (issue 34): the Gemini API (`x-goog-api-key`,
 * `POST /v1beta/models/{m}:predictLongRunning`, `GET /v1beta/{operation}`, the file download that
 * redirects to a signed URL) and Vertex AI (`POST /token` JWT-bearer grant verified with the
 * account's public key, `…:predictLongRunning` and `…:fetchPredictOperation` with the Bearer
 * token, the video's bytes inline). A prompt with `forbidden` ends filtered by responsible AI
 * (`raiMediaFilteredReasons`), one with `explode` in an error: Veo judges safety on the result.
 */
export async function startFakeVeo(opts: VideoFakeOptions = {}): Promise<FakeVeo> {
  const stepMs = opts.stepMs ?? 100;
  const c = newControls();
  const tokens = new Set<string>();

  const finished = (job: FakeVideoJob, name: string, vertex: boolean): Record<string, unknown> => {
    const phase = phaseOf(job, stepMs);
    if (phase === 'queued' || phase === 'running') return { name, metadata: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningMetadata' } };
    const folder = vertex ? 'vertex' : 'gemini';
    if (job.prompt.includes(MODERATION_WORD)) return { ...(providerFixture(folder, 'veo-operation.filtered.response').body as object), name };
    if (phase === 'failed') return { ...(providerFixture('gemini', 'veo-operation.failed.response').body as object), name };
    const done = providerFixture(folder, 'veo-operation.done.response').body as { response: Record<string, unknown> };
    if (vertex) return { ...done, name, response: { ...done.response, videos: [{ bytesBase64Encoded: FAKE_MP4.toString('base64'), mimeType: 'video/mp4' }] } };
    const uri = c.videoUrl ?? `${listening.url}/v1beta/files/${job.id}:download?alt=media`;
    return { ...done, name, response: { ...done.response, generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } };
  };

  const submit = (res: ServerResponse, body: unknown, model: string, name: (id: string) => string, vertex: boolean) => {
    if (!isRecord(body) || !Array.isArray(body.instances) || !isRecord(body.instances[0]) || !text(body.instances[0].prompt)) return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload: instances[0].prompt is required.');
    const p = isRecord(body.parameters) ? body.parameters : {};
    if (!vertex && p.seed !== undefined) return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Unknown name "seed" at \'parameters\'.');
    const id = randomBytes(6).toString('hex');
    const job = newJob(c, { id, model, prompt: text(body.instances[0].prompt), seconds: Number(p.durationSeconds ?? 8), size: String(p.resolution ?? '720p'), body });
    sendJson(res, 200, { name: name(job.id) });
  };

  function verifiedAssertion(form: URLSearchParams): boolean {
    const [head, payload, sig] = (form.get('assertion') ?? '').split('.');
    if (!head || !payload || !sig || form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return false;
    const ok = createVerify('RSA-SHA256').update(`${head}.${payload}`).verify(sa.account.publicKey, Buffer.from(sig, 'base64url'));
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    return ok && claims.iss === sa.account.clientEmail;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { url, body, text: raw } = await record(c, req);
    const path = url.pathname;
    if (c.down) return googleError(res, 503, 'UNAVAILABLE', 'The service is currently unavailable.');
    if (req.method === 'POST' && path === '/token') {
      if (!verifiedAssertion(new URLSearchParams(raw))) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      const token = `ya29.fake-${randomBytes(8).toString('hex')}`;
      tokens.add(token);
      return sendJson(res, 200, tokenAnswer(token, 3599));
    }
    const download = /^\/v1beta\/files\/([\w-]+):download$/.exec(path);
    if (download) {
      if (opts.key && req.headers['x-goog-api-key'] !== opts.key) return googleError(res, 403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers.');
      res.writeHead(302, { location: `${listening.url}/signed-download/${download[1]}?sig=${randomBytes(4).toString('hex')}` });
      return void res.end();
    }
    if (path.startsWith('/signed-download/')) return sendVideo(c, res);
    const vertex = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(predictLongRunning|fetchPredictOperation)$/.exec(path);
    if (vertex) {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!tokens.has(token)) return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
      const [, project, location, model] = vertex;
      const resource = `projects/${project}/locations/${location}/publishers/google/models/${model}`;
      if (vertex[4] === 'predictLongRunning') return submit(res, body, model!, (id) => `${resource}/operations/${id}`, true);
      const name = isRecord(body) ? text(body.operationName) : '';
      const job = name.startsWith(`${resource}/operations/`) ? c.jobs.get(name.slice(name.lastIndexOf('/') + 1)) : undefined;
      return job ? sendJson(res, 200, finished(job, name, true)) : googleError(res, 404, 'NOT_FOUND', `Operation ${name} not found.`);
    }
    if (opts.key && req.headers['x-goog-api-key'] !== opts.key) return googleError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    const gemini = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(path);
    if (gemini && req.method === 'POST') return submit(res, body, gemini[1]!, (id) => `models/${gemini[1]}/operations/${id}`, false);
    const op = /^\/v1beta\/models\/([^/]+)\/operations\/([\w-]+)$/.exec(path);
    if (op && req.method === 'GET') {
      const job = c.jobs.get(op[2]!);
      return job ? sendJson(res, 200, finished(job, `models/${op[1]}/operations/${op[2]}`, false)) : googleError(res, 404, 'NOT_FOUND', 'Operation not found.');
    }
    return googleError(res, 404, 'NOT_FOUND', `Not found: ${req.method} ${path}`);
  };
  const listening = await serveFake(opts, handle, (res) => googleError(res, 500, 'INTERNAL', 'Internal error encountered.'));
  const sa = makeServiceAccount({ tokenUri: `${listening.url}/token`, projectId: 'fake-project' });
  return Object.assign(c, listening, { serviceAccount: sa.json });
}
