import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULT_BALANCE } from './billing.js';
import { RequestError, invalidRequest, type FakeState, type RequestContext } from './context.js';
import { handleControl } from './control.js';
import { FAULT_HEADER, FaultBook, faultError, parseFault } from './faults.js';
import { DEFAULT_FAKE_MODELS, modelNotFound } from './models.js';
import { multipartBoundary, parseMultipart } from './multipart.js';
import { sendError } from './respond.js';
import { canonicalRoute, matchRoute } from './router.js';
import type { FakeFault, FakeOpenAI, FakeOpenAIOptions, RecordedRequest } from './types.js';
import { DEFAULT_CHUNK_COUNT } from './usage.js';
import { isRecord, sleep } from './util.js';

/** Uploads beyond this are refused with 413, like OpenAI's 25 MB audio limit (with headroom). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

const INVALID_JSON_MESSAGE =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";
const NO_KEY_MESSAGE =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";

const AZURE_PATH = /^\/openai\/deployments\/[^/]+\/(.+)$/u;
const AZURE_KEY_MESSAGE =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';

/** Azure's own refusals (`{"error":{"code","message"}}`): no api-version → 404, a wrong `api-key` → 401. True when one was sent. */
function azureRefusal(ctx: RequestContext, query: URLSearchParams, keys: string[] | undefined): boolean {
  const send = (status: number, message: string): true => {
    const body = JSON.stringify({ error: { code: String(status), message } });
    ctx.res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    ctx.res.end(body);
    return true;
  };
  if (!query.get('api-version')) return send(404, 'Resource not found');
  const key = ctx.req.headers['api-key'];
  if (keys && (typeof key !== 'string' || !keys.includes(key))) return send(401, AZURE_KEY_MESSAGE);
  return false;
}

/** Masks a key the way OpenAI echoes it in errors: first 3 and last 4 characters kept. */
function maskKey(key: string): string {
  return key.length <= 8 ? key : `${key.slice(0, 3)}${'*'.repeat(Math.min(key.length - 7, 40))}${key.slice(-4)}`;
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts a fake OpenAI upstream on loopback. See `FakeOpenAIOptions` for the knobs. */
export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  let idCounter = 0;
  let requestCounter = 0;
  const faults = new FaultBook();
  faults.setInstance(opts.fault ?? null);
  const requests: RecordedRequest[] = [];
  const maxRecorded = opts.maxRecordedRequests ?? 10_000;
  const active = new Set<AbortController>();
  const sockets = new Set<Socket>();
  const state: FakeState = {
    chunkCount: opts.chunkCount ?? DEFAULT_CHUNK_COUNT,
    chunkDelayMs: opts.chunkDelayMs ?? 0,
    models: opts.models ?? [...DEFAULT_FAKE_MODELS],
    strictModels: opts.strictModels ?? false,
    cachedTokens: opts.cachedTokens ?? 0,
    reasoningTokens: opts.reasoningTokens ?? 0,
    agentScenario: opts.agentScenario ?? false,
    balance: { ...DEFAULT_BALANCE, ...opts.balance },
    origin: '',
    nextId: () => {
      idCounter += 1;
      return idCounter;
    },
    nextRequestId: () => {
      requestCounter += 1;
      return requestCounter;
    },
  };

  const fake: FakeOpenAI = {
    url: '',
    baseURL: '',
    port: 0,
    requests,
    reset: () => {
      requests.length = 0;
      faults.reset();
    },
    setFault: (fault: FakeFault | null) => faults.setInstance(fault),
    setBalance: (balance) => {
      state.balance = { ...state.balance, ...balance };
    },
    close: async () => {
      for (const controller of active) controller.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const method = req.method ?? 'GET';
    // Azure OpenAI's deployment paths (`/openai/deployments/{name}/…?api-version=`) serve the same operations.
    const azure = AZURE_PATH.exec(url.pathname);
    const route = azure ? `/v1/${azure[1]}` : canonicalRoute(url.pathname);
    const raw = await readBody(req);
    const ctx: RequestContext = { req, res, method, route, query: url.searchParams, body: undefined, bodyInvalid: false, state, signal };
    if (raw === undefined) {
      sendError(ctx, 413, { message: 'Request body too large.', type: 'invalid_request_error', param: null, code: null });
      return;
    }
    if (route.startsWith('/__fake/')) {
      await handleControl(ctx, raw, fake, faults);
      return;
    }
    parseBody(ctx, raw);
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: ctx.body,
      rawBodyLength: raw.length,
      receivedAt: Date.now(),
      ...(ctx.multipart ? { fields: ctx.multipart.fields, files: ctx.multipart.files.map(({ data, ...f }) => ({ ...f, size: data.length, sha256: createHash('sha256').update(data).digest('hex') })) } : {}),
    };
    ctx.record = record;
    requests.push(record);
    if (requests.length > maxRecorded) requests.shift();
    // Lets a test see that a proxy cancelled its upstream call (e.g. after its own client left).
    res.once('close', () => {
      if (!res.writableFinished) record.closedEarly = true;
    });

    const match = matchRoute(method, route);
    if (!match) {
      throw new RequestError(404, { message: `Invalid URL (${method} ${url.pathname})`, type: 'invalid_request_error', param: null, code: null });
    }
    if (azure) {
      if (azureRefusal(ctx, url.searchParams, opts.apiKeys)) return;
    } else if (opts.apiKeys && !match.public) checkAuth(req.headers.authorization, opts.apiKeys);
    if (ctx.bodyInvalid) throw invalidRequest(INVALID_JSON_MESSAGE);

    const model = match.pathModel ?? requestModel(ctx);
    const headerValue = req.headers[FAULT_HEADER];
    const headerText = Array.isArray(headerValue) ? headerValue[0] : headerValue;
    let headerFault: FakeFault | undefined;
    if (headerText !== undefined) {
      try {
        headerFault = parseFault(JSON.parse(headerText));
      } catch (err) {
        throw invalidRequest(`Invalid ${FAULT_HEADER} header: ${(err as Error).message}`);
      }
    }
    const fault = match.public ? undefined : faults.take(headerText, headerFault, route, model);
    if (fault) {
      record.fault = fault;
      ctx.fault = fault;
    }
    if (fault?.delayMs && !(await sleep(fault.delayMs, signal))) return;
    if (fault?.status !== undefined) {
      sendFaultStatus(ctx, fault as FakeFault & { status: number });
      return;
    }
    if (state.strictModels && method === 'POST' && model !== undefined && !state.models.includes(model)) {
      throw modelNotFound(model);
    }
    await match.handler(ctx);
  }

  const server = createServer((req, res) => {
    const controller = new AbortController();
    active.add(controller);
    res.on('close', () => {
      active.delete(controller);
      controller.abort();
    });
    handle(req, res, controller.signal).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
      } else if (err instanceof RequestError) {
        sendError({ res, state }, err.status, err.error);
      } else {
        sendError({ res, state }, 500, { message: `Fake upstream bug: ${String(err)}`, type: 'server_error', param: null, code: null });
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  fake.port = address.port;
  fake.url = `http://${host}:${address.port}`;
  fake.baseURL = `${fake.url}/v1`;
  state.origin = fake.url;
  return fake;
}

function parseBody(ctx: RequestContext, raw: Buffer): void {
  const contentType = ctx.req.headers['content-type'];
  const boundary = multipartBoundary(contentType);
  if (boundary) {
    try {
      ctx.multipart = parseMultipart(raw, boundary);
    } catch {
      ctx.bodyInvalid = true;
    }
    return;
  }
  if (raw.length === 0) return;
  try {
    ctx.body = JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    ctx.bodyInvalid = true;
  }
}

function requestModel(ctx: RequestContext): string | undefined {
  if (isRecord(ctx.body) && typeof ctx.body.model === 'string') return ctx.body.model;
  return ctx.multipart?.fields.model;
}

function checkAuth(authorization: string | undefined, keys: string[]): void {
  const match = /^Bearer\s+(.+)$/iu.exec(authorization ?? '');
  if (!match) throw new RequestError(401, { message: NO_KEY_MESSAGE, type: 'invalid_request_error', param: null, code: null });
  const key = match[1].trim();
  if (!keys.includes(key)) {
    throw new RequestError(401, {
      message: `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
    });
  }
}

function sendFaultStatus(ctx: RequestContext, fault: FakeFault & { status: number }): void {
  const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
  if (fault.body === undefined) {
    sendError(ctx, fault.status, faultError(fault), headers);
    return;
  }
  ctx.res.writeHead(fault.status, { 'content-type': fault.contentType ?? 'text/plain; charset=utf-8', ...headers });
  ctx.res.end(fault.body);
}
