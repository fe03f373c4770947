import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';

export const FAKE_AIPROXY_LIBRARY_ID = 'lib-fake-0001';
export const FAKE_AIPROXY_ANSWER = 'ModelGate relays requests to many upstream providers';
export const FAKE_AIPROXY_DOCUMENTS = [
  { title: 'ModelGate overview', url: 'https://docs.example.com/modelgate/overview' },
  { title: 'Channels and keys', url: 'https://docs.example.com/modelgate/channels' },
];

export interface AIProxyLibraryRecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; errCode: number; message: string };
}

export interface FakeAIProxyLibrary extends ListeningFake {
  requests: AIProxyLibraryRecordedRequest[];
  /** The next asks answer `success:false` with this code and message (HTTP 200). */
  setFault(f: { errCode: number; message: string; times?: number } | null): void;
}

class LibraryRefusal extends Error {
  constructor(
    readonly status: number,
    readonly errCode: number,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
/**
 * The documented bodies (server/src/relay/adapters/aiproxy-library/fixtures) are the fake's
 * templates: the answer, the stream frames and the refusal, with this call's text and documents.
 */
const documented = (name: string): Obj => providerFixture('aiproxy-library', name).body as Obj;
const STREAM = providerFixture('aiproxy-library', 'ask.stream').events as Obj[];
const streamFrame = (finish: boolean): Obj => STREAM.find((e) => e.finish === finish)!;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A fake AIProxy knowledge-base API on loopback: `POST /api/library/ask` with the key in `Api-Key`
 * (AIProxy's own library client; one-api sends it as Bearer too) and `{model, query, libraryId,
 * stream}`. Answers `{success:true, answer, documents:[{title,url}], errCode:0, message:""}`, or a
 * stream of `data:{content, finish, model, documents}` events (no space after `data:`, as one-api
 * reads them) ending with `finish:true` and the documents, then `[DONE]`. Refusals are `{success:false, errCode,
 * message}` — HTTP 200 for a question it cannot answer, 401 for a missing or unknown key.
 */
export async function startFakeAIProxyLibrary(
  opts: { port?: number; host?: string; apiKeys?: string[]; libraryIds?: string[]; answer?: string; documents?: Array<{ title: string; url: string }> } = {},
): Promise<FakeAIProxyLibrary> {
  const requests: AIProxyLibraryRecordedRequest[] = [];
  const answerText = opts.answer ?? FAKE_AIPROXY_ANSWER;
  const documents = opts.documents ?? FAKE_AIPROXY_DOCUMENTS;
  const libraries = new Set(opts.libraryIds ?? [FAKE_AIPROXY_LIBRARY_ID]);
  let fault: { errCode: number; message: string; times?: number } | null = null;
  let faultUses = 0;

  function check(req: IncomingMessage, body: unknown): { model: string; query: string; stream: boolean } {
    const key = req.headers['api-key'];
    if (typeof key !== 'string' || !key || (opts.apiKeys && !opts.apiKeys.includes(key))) throw new LibraryRefusal(401, 401, 'Api-Key is missing or invalid');
    if (!isRecord(body)) throw new LibraryRefusal(200, 400, 'the request body must be a JSON object');
    for (const f of Object.keys(body)) if (!['model', 'query', 'libraryId', 'stream'].includes(f)) throw new LibraryRefusal(200, 400, `unknown field ${f}`);
    if (typeof body.model !== 'string' || !body.model) throw new LibraryRefusal(200, 400, 'model is required');
    if (typeof body.query !== 'string' || !body.query.trim()) throw new LibraryRefusal(200, 400, 'query is required');
    if (typeof body.libraryId !== 'string' || !libraries.has(body.libraryId)) throw new LibraryRefusal(200, 404, `library ${String(body.libraryId)} does not exist`);
    if (body.stream !== undefined && typeof body.stream !== 'boolean') throw new LibraryRefusal(200, 400, 'stream must be a boolean');
    if (fault && (fault.times === undefined || faultUses < fault.times)) {
      faultUses += 1;
      throw new LibraryRefusal(200, fault.errCode, fault.message);
    }
    return { model: body.model, query: body.query, stream: body.stream === true };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const { body } = await readJsonBody(req);
    const record: AIProxyLibraryRecordedRequest = { path: url.pathname, headers: req.headers, body };
    requests.push(record);
    try {
      if (req.method !== 'POST' || url.pathname !== '/api/library/ask') throw new LibraryRefusal(404, 404, `no route ${req.method ?? 'GET'} ${url.pathname}`);
      const ask = check(req, body);
      if (!ask.stream) {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ ...documented('ask.response'), answer: answerText, documents }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      answerText.split(' ').forEach((w, i) => res.write(`data:${JSON.stringify({ ...streamFrame(false), content: i === 0 ? w : ` ${w}`, model: ask.model, documents: [] })}\n\n`));
      res.write(`data:${JSON.stringify({ ...streamFrame(true), content: '', model: ask.model, documents })}\n\n`);
      // As documented, the stream closes with `[DONE]` after the finishing frame.
      res.end('data:[DONE]\n\n');
    } catch (err) {
      if (!(err instanceof LibraryRefusal)) throw err;
      record.rejected = { status: err.status, errCode: err.errCode, message: err.message };
      res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ ...documented('error.library-missing'), errCode: err.errCode, message: err.message }));
    }
  }

  const listening = await serveFake(opts, handle, (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...documented('error.library-missing'), errCode: 500, message: `Fake upstream bug: ${String(err)}` }));
  });
  return {
    ...listening,
    requests,
    setFault: (f) => {
      fault = f;
      faultUses = 0;
    },
  };
}
