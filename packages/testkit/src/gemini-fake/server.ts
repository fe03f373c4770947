import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from '../http-fake.js';
import { GeminiError, defaultMessageFor, errorJson, googleStatusFor, invalid } from './errors.js';
import { chunks, generateReply, plan } from './reply.js';
import type { FakeGemini, FakeGeminiFault, FakeGeminiOptions, GeminiRecordedRequest } from './types.js';
import { promptTokens } from './usage.js';
import { camelize, isRecord, validateGenerateContent } from './validate.js';

const FAULT_HEADER = 'x-fake-fault';
const MODELS = ['gemini-2.0-flash', 'gemini-2.5-flash', 'gemini-2.5-pro', 'text-embedding-004'];
const ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):([A-Za-z]+)$/;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<boolean>((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => resolve(true), ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve(false)), { once: true });
  });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
};

/** A deterministic embedding: `dims` values from the text's word count. */
function embedding(text: string, dims: number): { values: number[] } {
  const n = text.trim() ? text.trim().split(/\s+/u).length : 0;
  return { values: Array.from({ length: dims }, (_, j) => ((n + j) % 10) / 10) };
}

function embedRequest(r: unknown, model: string, at: string): { values: number[] } {
  const e = camelize(r);
  if (!isRecord(e) || !isRecord(e.content) || !Array.isArray(e.content.parts)) throw invalid(`* ${at}.content: content is not specified`);
  if (e.model !== undefined && e.model !== `models/${model}`) throw invalid(`* ${at}.model: model in the request must match the URL (models/${model})`);
  const text = e.content.parts.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
  return embedding(text, typeof e.outputDimensionality === 'number' ? e.outputDimensionality : 8);
}

/**
 * Starts a fake Gemini API on loopback (providers-international §2): `models/{model}:generateContent`,
 * `:streamGenerateContent` (SSE with `alt=sse`, else a JSON array), `:countTokens`,
 * `:embedContent`, `:batchEmbedContents`, and the paged `GET models`, under `/v1beta` and `/v1`. It
 * checks the key (`x-goog-api-key` or `?key=`), validates the body as the API documents it, replays
 * the documented chunks with deterministic usage (usage.ts), and injects Google's errors.
 */
export async function startFakeGemini(opts: FakeGeminiOptions = {}): Promise<FakeGemini> {
  let counter = 0;
  let fault: FakeGeminiFault | null = opts.fault ?? null;
  let faultUses = 0;
  const requests: GeminiRecordedRequest[] = [];
  const chunkCount = opts.chunkCount ?? 5;
  const models = opts.models ?? MODELS;

  const takeFault = (req: IncomingMessage): FakeGeminiFault | undefined => {
    const header = req.headers[FAULT_HEADER];
    if (typeof header === 'string') {
      try {
        return JSON.parse(header) as FakeGeminiFault;
      } catch {
        throw invalid(`Invalid ${FAULT_HEADER} header`);
      }
    }
    if (!fault || (fault.times !== undefined && faultUses >= fault.times)) return undefined;
    faultUses += 1;
    return fault;
  };

  const sendError = (res: ServerResponse, e: GeminiError, headers: Record<string, string> = {}) => {
    res.writeHead(e.status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    res.end(JSON.stringify(errorJson(e)));
  };

  async function stream(res: ServerResponse, body: Record<string, unknown>, model: string, sse: boolean, f: FakeGeminiFault | undefined, signal: AbortSignal): Promise<void> {
    const p = plan(body, { model, chunkCount, cachedTokens: opts.cachedTokens ?? 0, responseId: `fakeResp${String(++counter).padStart(6, '0')}` });
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8' });
    res.flushHeaders();
    const frame = (obj: unknown, first: boolean) => (sse ? `data: ${JSON.stringify(obj)}\r\n\r\n` : `${first ? '[' : '\r\n,'}${JSON.stringify(obj)}`);
    const delay = f?.chunkDelayMs ?? opts.chunkDelayMs ?? 0;
    let sent = 0;
    for (const c of chunks(p)) {
      if (signal.aborted || res.destroyed) return;
      if (f?.disconnectAfterEvents !== undefined && sent >= f.disconnectAfterEvents) {
        await sleep(20, signal);
        res.socket?.destroy();
        return;
      }
      if (f?.errorAfterEvents !== undefined && sent >= f.errorAfterEvents) {
        const status = f.status ?? 503;
        const googleStatus = f.googleStatus ?? googleStatusFor(status);
        res.end(frame(errorJson({ status, googleStatus, message: f.message ?? defaultMessageFor(googleStatus) }), sent === 0) + (sse ? '' : ']'));
        return;
      }
      if (sent > 0 && delay > 0 && !(await sleep(delay, signal))) return;
      if (!res.write(frame(c, sent === 0))) await new Promise((r) => res.once('drain', r));
      sent += 1;
    }
    res.end(sse ? '' : sent ? ']' : '[]');
  }

  async function call(res: ServerResponse, req: IncomingMessage, record: GeminiRecordedRequest, model: string, method: string, body: unknown, query: URLSearchParams, signal: AbortSignal): Promise<void> {
    if (!models.includes(model)) throw new GeminiError(404, 'NOT_FOUND', `models/${model} is not found for API version ${record.path.split('/')[1]}, or is not supported for ${method}.`);
    if (method === 'countTokens') {
      const b = camelize(body);
      const inner = isRecord(b) && isRecord(b.generateContentRequest) ? b.generateContentRequest : b;
      const checked = validateGenerateContent(inner);
      return json(res, { totalTokens: promptTokens(checked), promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens(checked) }] });
    }
    if (method === 'embedContent') return json(res, { embedding: embedRequest(body, model, 'EmbedContentRequest') });
    if (method === 'batchEmbedContents') {
      const b = isRecord(body) ? body : {};
      if (!Array.isArray(b.requests) || b.requests.length === 0) throw invalid('* BatchEmbedContentsRequest.requests: requests is not specified');
      return json(res, { embeddings: b.requests.map((r, i) => embedRequest(r, model, `BatchEmbedContentsRequest.requests[${i}]`)) });
    }
    if (method !== 'generateContent' && method !== 'streamGenerateContent') throw new GeminiError(404, 'NOT_FOUND', `Method ${method} is not found.`);
    const checked = validateGenerateContent(body);
    const f = takeFault(req);
    if (f) record.fault = f;
    if (f?.status !== undefined && f.errorAfterEvents === undefined) {
      const googleStatus = f.googleStatus ?? googleStatusFor(f.status);
      throw Object.assign(new GeminiError(f.status, googleStatus, f.message ?? defaultMessageFor(googleStatus)), { retryAfter: f.retryAfter });
    }
    if (method === 'streamGenerateContent') return stream(res, checked, model, query.get('alt') === 'sse', f, signal);
    json(res, generateReply(plan(checked, { model, chunkCount, cachedTokens: opts.cachedTokens ?? 0, responseId: `fakeResp${String(++counter).padStart(6, '0')}` })));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const raw = await readBody(req);
    let body: unknown;
    let bodyInvalid = false;
    try {
      body = raw.length ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
    } catch {
      bodyInvalid = true;
    }
    if (url.pathname.startsWith('/__fake/')) return control(url.pathname, req.method ?? 'GET', body, res);
    const record: GeminiRecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, receivedAt: Date.now() };
    requests.push(record);
    if (requests.length > (opts.maxRecordedRequests ?? 10_000)) requests.shift();
    res.once('close', () => {
      if (!res.writableFinished) record.closedEarly = true;
    });
    try {
      const header = req.headers['x-goog-api-key'];
      const key = typeof header === 'string' && header ? header : url.searchParams.get('key');
      if (!key) throw new GeminiError(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
      if (opts.apiKeys && !opts.apiKeys.includes(key)) throw new GeminiError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID');
      if (req.method === 'GET' && /^\/(v1beta|v1)\/models$/.test(url.pathname)) {
        const size = Math.min(Number(url.searchParams.get('pageSize') ?? 50) || 50, 1000);
        const from = Number(url.searchParams.get('pageToken') ?? 0) || 0;
        const page = models.slice(from, from + size).map((id) => ({
          name: `models/${id}`,
          version: '001',
          displayName: id,
          inputTokenLimit: 1_048_576,
          outputTokenLimit: 8192,
          supportedGenerationMethods: id.includes('embedding') ? ['embedContent', 'batchEmbedContents'] : ['generateContent', 'countTokens'],
        }));
        return json(res, from + size < models.length ? { models: page, nextPageToken: String(from + size) } : { models: page });
      }
      const m = ROUTE.exec(url.pathname);
      if (req.method !== 'POST' || !m) throw new GeminiError(404, 'NOT_FOUND', `Not found: ${req.method ?? 'GET'} ${url.pathname}`);
      record.model = m[2]!;
      record.action = m[3]!;
      if (bodyInvalid) throw invalid('Invalid JSON payload received. Unexpected token.');
      await call(res, req, record, m[2]!, m[3]!, body, url.searchParams, signal);
    } catch (err) {
      if (!(err instanceof GeminiError)) throw err;
      record.rejected = { status: err.status, googleStatus: err.googleStatus, message: err.message };
      const retryAfter = (err as { retryAfter?: number }).retryAfter;
      sendError(res, err, retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {});
    }
  }

  /** `/__fake/*`: the same controls over HTTP, for the CLI demo upstream. */
  function control(path: string, method: string, body: unknown, res: ServerResponse): void {
    if (method === 'POST' && path === '/__fake/fault') fake.setFault(isRecord(body) ? (body as FakeGeminiFault) : null);
    else if (method === 'POST' && path === '/__fake/reset') fake.reset();
    else if (method === 'GET' && path === '/__fake/requests') return json(res, { requests });
    else return sendError(res, invalid(`unknown control action ${method} ${path}`));
    json(res, { ok: true });
  }

  const listening = await serveFake(opts, handle, (res, err) => sendError(res, new GeminiError(500, 'INTERNAL', `Fake upstream bug: ${String(err)}`)));
  const fake: FakeGemini = {
    url: listening.url,
    port: listening.port,
    requests,
    reset: () => {
      requests.length = 0;
      fault = null;
      faultUses = 0;
    },
    setFault: (f) => {
      fault = f;
      faultUses = 0;
    },
    close: listening.close,
  };
  return fake;
}
