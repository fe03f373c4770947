import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';

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

function googleErrorBody(e: GoogleError): Record<string, unknown> {
  const error: Record<string, unknown> = { code: e.status, message: e.message, status: e.googleStatus };
  if (e.reason) error.details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.reason, domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }];
  return { error };
}

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
      if (!key || (opts.apiKeys && !opts.apiKeys.includes(key))) throw new GoogleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID');
      if (req.method === 'GET' && url.pathname === '/v1beta2/models') {
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify({ models: MODELS.map((m) => ({ name: `models/${m}`, version: '001', displayName: m })) }));
        return;
      }
      const route = /^\/v1beta2\/models\/([^/:]+):generateMessage$/.exec(url.pathname);
      if (!route || req.method !== 'POST') throw new GoogleError(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
      if (route[1] !== 'chat-bison-001') throw new GoogleError(404, 'NOT_FOUND', `models/${route[1]} is not found for API version v1beta2, or is not supported for generateMessage.`);
      const { messages } = checkBody(body);
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      if (opts.blockReason) {
        res.end(JSON.stringify({ filters: [{ reason: opts.blockReason }], messages }));
        return;
      }
      res.end(JSON.stringify({ candidates: [{ author: '1', content: opts.reply ?? FAKE_PALM_REPLY }], messages }));
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
