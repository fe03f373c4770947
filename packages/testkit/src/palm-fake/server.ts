import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';

export interface PalmRecordedRequest {
  method: string;
  path: string;
  /** The `key` query parameter. */
  key: string | null;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; reason: string };
}

export interface FakePalm extends ListeningFake {
  requests: PalmRecordedRequest[];
}

export interface FakePalmOptions {
  port?: number;
  host?: string;
  /** Accepted API keys (`?key=` or `x-goog-api-key`); default any non-empty key. */
  apiKeys?: string[];
  /** The reply's text; default "Hello from the fake Google". */
  reply?: string;
  /** Answer every message with no candidate and this filter (a blocked reply). */
  blockReason?: string;
}

export const FAKE_PALM_REPLY = 'Hello from the fake Google';
const MODELS = ['chat-bison-001', 'text-bison-001', 'embedding-gecko-001'];

class GoogleError extends Error {
  constructor(
    readonly status: number,
    readonly googleStatus: string,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
/**
 * PaLM's documented bodies (server/src/relay/adapters/palm/fixtures) are the fake's templates: the
 * answer, the blocked answer and Google's error envelope, with this request's values put in.
 */
const documented = (name: string): Obj => providerFixture('palm', name).body as Obj;
const errorTemplate = (name: string): Obj => documented(name).error as Obj;

/** Google's error envelope: a refusal with a reason carries the documented `ErrorInfo` detail (API_KEY_INVALID), others none. */
function googleErrorBody(e: GoogleError): Obj {
  const { details, ...plain } = errorTemplate('error.api-key-invalid');
  const error: Obj = { ...plain, code: e.status, message: e.message, status: e.googleStatus };
  if (e.reason) error.details = [{ ...(details as Obj[])[0], reason: e.reason }];
  return { error };
}

const API_KEY_INVALID = errorTemplate('error.api-key-invalid');
/** The documented 404 of a model generateMessage does not serve; its model name is the asked one. */
const MODEL_NOT_FOUND = errorTemplate('error.not-found');

/** Checks a `generateMessage` body the way the API documents it: a prompt with author/content messages. */
function checkBody(body: unknown): { context?: string; messages: Array<{ author: string; content: string }> } {
  if (typeof body !== 'object' || body === null) throw new GoogleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const prompt = (body as { prompt?: unknown }).prompt as { context?: unknown; messages?: unknown } | undefined;
  if (!prompt || !Array.isArray(prompt.messages) || prompt.messages.length === 0) throw new GoogleError(400, 'INVALID_ARGUMENT', 'prompt.messages must not be empty.');
  for (const m of prompt.messages as unknown[]) {
    const msg = m as { author?: unknown; content?: unknown };
    if (typeof msg?.content !== 'string' || (msg.author !== undefined && typeof msg.author !== 'string')) throw new GoogleError(400, 'INVALID_ARGUMENT', 'Invalid value at prompt.messages: each message needs a string content.');
  }
  for (const f of Object.keys(body)) {
    if (!['prompt', 'temperature', 'candidateCount', 'topP', 'topK'].includes(f)) throw new GoogleError(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "${f}": Cannot find field.`);
  }
  return { context: typeof prompt.context === 'string' ? prompt.context : undefined, messages: prompt.messages as Array<{ author: string; content: string }> };
}

/**
 * A fake Google PaLM 2 API (v1beta2, providers-international §3) on loopback:
 * `POST /v1beta2/models/{model}:generateMessage` and `GET /v1beta2/models`, the key in `?key=`
 * (or `x-goog-api-key`). Replies `{candidates:[{author,content}],messages}` with no usage, or no
 * candidate plus `filters` when blocked; errors in Google's `{error:{code,message,status,details}}`.
 * PaLM has no streaming method.
 */
export async function startFakePalm(opts: FakePalmOptions = {}): Promise<FakePalm> {
  const requests: PalmRecordedRequest[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const { body } = await readJsonBody(req);
    const key = url.searchParams.get('key') ?? (typeof req.headers['x-goog-api-key'] === 'string' ? req.headers['x-goog-api-key'] : null);
    const record: PalmRecordedRequest = { method: req.method ?? 'GET', path: url.pathname, key, headers: req.headers, body };
    requests.push(record);
    try {
      if (!key || (opts.apiKeys && !opts.apiKeys.includes(key))) {
        const reason = String(((API_KEY_INVALID.details as Obj[])[0] as Obj).reason);
        throw new GoogleError(Number(API_KEY_INVALID.code), String(API_KEY_INVALID.status), String(API_KEY_INVALID.message), reason);
      }
      if (req.method === 'GET' && url.pathname === '/v1beta2/models') {
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify({ models: MODELS.map((m) => ({ name: `models/${m}`, version: '001', displayName: m })) }));
        return;
      }
      const route = /^\/v1beta2\/models\/([^/:]+):generateMessage$/.exec(url.pathname);
      if (!route || req.method !== 'POST') throw new GoogleError(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
      if (route[1] !== 'chat-bison-001') throw new GoogleError(Number(MODEL_NOT_FOUND.code), String(MODEL_NOT_FOUND.status), String(MODEL_NOT_FOUND.message).replace(/^models\/\S+/, `models/${route[1]}`));
      const { messages } = checkBody(body);
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      if (opts.blockReason) {
        const blocked = documented('chat.response.blocked');
        res.end(JSON.stringify({ ...blocked, messages, filters: [{ ...(blocked.filters as Obj[])[0], reason: opts.blockReason }] }));
        return;
      }
      const answer = documented('chat.response');
      // The candidate keeps the documented author ("1", the model's turn); PaLM reports no usage.
      res.end(JSON.stringify({ ...answer, candidates: [{ ...(answer.candidates as Obj[])[0], content: opts.reply ?? FAKE_PALM_REPLY }], messages }));
    } catch (err) {
      if (!(err instanceof GoogleError)) throw err;
      record.rejected = { status: err.status, reason: err.reason ?? err.googleStatus };
      res.writeHead(err.status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(googleErrorBody(err)));
    }
  }

  const listening = await serveFake(opts, handle, (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify(googleErrorBody(new GoogleError(500, 'INTERNAL', `Fake upstream bug: ${String(err)}`))));
  });
  return { ...listening, requests };
}
