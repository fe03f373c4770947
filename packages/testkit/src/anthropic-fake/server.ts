import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from '../http-fake.js';
import { AnthropicError, defaultMessageFor, errorBody, errorTypeFor, invalid } from './errors.js';
import { anthropicEvents, anthropicMessage, anthropicStreamError, plan } from './reply.js';
import type { AnthropicRecordedRequest, FakeAnthropic, FakeAnthropicFault, FakeAnthropicOptions } from './types.js';
import { promptUsage, promptWords } from './usage.js';
import { isRecord, validateMessagesRequest } from './validate.js';

const FAULT_HEADER = 'x-fake-fault';
const MODELS = ['claude-3-5-sonnet-20241022', 'claude-3-5-haiku-20241022', 'claude-3-7-sonnet-20250219', 'claude-sonnet-4-20250514'];

/** The `anthropic-beta` flags of a request (comma-separated, possibly over several header lines). */
function betas(req: IncomingMessage): Set<string> {
  const raw = req.headers['anthropic-beta'];
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return new Set(list.flatMap((v) => v.split(',')).map((b) => b.trim()).filter(Boolean));
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<boolean>((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => resolve(true), ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve(false)), { once: true });
  });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Starts a fake Anthropic Messages API on loopback (providers-international §1): `POST
 * /v1/messages` (JSON and SSE), `POST /v1/messages/count_tokens`, `GET /v1/models`. It checks
 * `x-api-key` and `anthropic-version`, validates the body as the API documents it, replays the
 * documented event sequence with deterministic usage (usage.ts), and injects Anthropic's errors.
 */
export async function startFakeAnthropic(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  let counter = 0;
  let fault: FakeAnthropicFault | null = opts.fault ?? null;
  let faultUses = 0;
  const requests: AnthropicRecordedRequest[] = [];
  const chunkCount = opts.chunkCount ?? 5;
  const nextId = (prefix: string) => `${prefix}fake${String(++counter).padStart(8, '0')}`;

  const takeFault = (req: IncomingMessage): FakeAnthropicFault | undefined => {
    const header = req.headers[FAULT_HEADER];
    if (typeof header === 'string') {
      try {
        return JSON.parse(header) as FakeAnthropicFault;
      } catch {
        throw invalid('', `Invalid ${FAULT_HEADER} header`);
      }
    }
    if (!fault || (fault.times !== undefined && faultUses >= fault.times)) return undefined;
    faultUses += 1;
    return fault;
  };

  const sendError = (res: ServerResponse, e: AnthropicError, headers: Record<string, string> = {}) => {
    const requestId = nextId('req_');
    res.writeHead(e.status, { 'content-type': 'application/json', 'request-id': requestId, 'x-should-retry': String(e.status === 429 || e.status >= 500), ...headers });
    res.end(errorBody(e.type, e.message, requestId));
  };

  const planOpts = () => ({ chunkCount, cacheRead: opts.cacheReadTokens ?? 0, cacheCreation: opts.cacheCreationTokens ?? 0, id: nextId('msg_'), toolId: nextId('toolu_'), agentScenario: opts.agentScenario });

  async function stream(res: ServerResponse, record: AnthropicRecordedRequest, body: Record<string, unknown>, f: FakeAnthropicFault | undefined, signal: AbortSignal): Promise<void> {
    const p = plan(body, planOpts());
    record.usage = p.usage;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': nextId('req_') });
    res.flushHeaders();
    const delay = f?.chunkDelayMs ?? opts.chunkDelayMs ?? 0;
    let sent = 0;
    for (const [name, data] of anthropicEvents(p, chunkCount)) {
      if (signal.aborted || res.destroyed) return;
      if (f?.disconnectAfterEvents !== undefined && sent >= f.disconnectAfterEvents) {
        await sleep(20, signal);
        res.socket?.destroy();
        return;
      }
      if (f?.errorAfterEvents !== undefined && sent >= f.errorAfterEvents) {
        const type = f.type ?? 'overloaded_error';
        res.end(`event: error\ndata: ${JSON.stringify(anthropicStreamError(type, f.message ?? defaultMessageFor(type)))}\n\n`);
        return;
      }
      if (sent > 0 && delay > 0 && !(await sleep(delay, signal))) return;
      if (!res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)) await new Promise((r) => res.once('drain', r));
      sent += 1;
    }
    res.end();
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
    const record: AnthropicRecordedRequest = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body, receivedAt: Date.now() };
    requests.push(record);
    if (requests.length > (opts.maxRecordedRequests ?? 10_000)) requests.shift();
    res.once('close', () => {
      if (!res.writableFinished) record.closedEarly = true;
    });
    try {
      const key = req.headers['x-api-key'];
      if (typeof key !== 'string' || !key) throw new AnthropicError(401, 'authentication_error', 'x-api-key header is required');
      if (opts.apiKeys && !opts.apiKeys.includes(key)) throw new AnthropicError(401, 'authentication_error', 'invalid x-api-key');
      if (!req.headers['anthropic-version']) throw invalid('', 'anthropic-version: header is required');
      const route = `${req.method ?? 'GET'} ${url.pathname}`;
      if (route === 'GET /v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: MODELS.map((id) => ({ type: 'model', id, display_name: id, created_at: '2024-10-22T00:00:00Z' })), has_more: false, first_id: MODELS[0], last_id: MODELS.at(-1) }));
        return;
      }
      if (route !== 'POST /v1/messages' && route !== 'POST /v1/messages/count_tokens') throw new AnthropicError(404, 'not_found_error', `Not found: ${route}`);
      if (bodyInvalid) throw invalid('', 'There was an error parsing the body of your request');
      const counting = route === 'POST /v1/messages/count_tokens';
      validateMessagesRequest(body, counting, betas(req));
      if (counting) {
        const u = promptUsage(promptWords(body), 0, 0);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: u.input_tokens }));
        return;
      }
      const f = takeFault(req);
      if (f) record.fault = f;
      if (f?.status !== undefined) {
        const type = f.type ?? errorTypeFor(f.status);
        throw Object.assign(new AnthropicError(f.status, type, f.message ?? defaultMessageFor(type)), { retryAfter: f.retryAfter });
      }
      if (body.stream === true) return await stream(res, record, body, f, signal);
      const p = plan(body, planOpts());
      record.usage = p.usage;
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': nextId('req_') });
      res.end(JSON.stringify(anthropicMessage(p)));
    } catch (err) {
      if (!(err instanceof AnthropicError)) throw err;
      record.rejected = { status: err.status, type: err.type, message: err.message };
      const retryAfter = (err as { retryAfter?: number }).retryAfter;
      sendError(res, err, retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {});
    }
  }

  /** `/__fake/*`: the same controls over HTTP, for the CLI demo upstream. */
  function control(path: string, method: string, body: unknown, res: ServerResponse): void {
    if (method === 'POST' && path === '/__fake/fault') fake.setFault(isRecord(body) ? (body as FakeAnthropicFault) : null);
    else if (method === 'POST' && path === '/__fake/reset') fake.reset();
    else if (method === 'GET' && path === '/__fake/requests') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ requests }));
      return;
    } else return sendError(res, invalid('', `unknown control action ${method} ${path}`));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  }

  const listening = await serveFake(opts, handle, (res, err) => sendError(res, new AnthropicError(500, 'api_error', `Fake upstream bug: ${String(err)}`)));
  const fake: FakeAnthropic = {
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
