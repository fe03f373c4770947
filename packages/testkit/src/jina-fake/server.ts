import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { fakeEmbedding, rankDocuments, words } from '../rerank-scores.js';

export interface JinaRecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; detail: unknown };
}

export interface FakeJina extends ListeningFake {
  requests: JinaRecordedRequest[];
}

class JinaError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === 'string' ? detail : 'validation error');
  }
}

type Obj = Record<string, unknown>;
/**
 * Jina's documented bodies (kept with the OpenAI-compatible vendors:
 * server/src/relay/adapters/openai-compatible/fixtures/jina.*) are the fake's templates.
 */
const documented = (name: string): Obj => providerFixture('openai-compatible', `jina.${name}`).body as Obj;
const BAD_KEY = providerFixture('openai-compatible', 'jina.error.detail');

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const EMBEDDING_MODELS = ['jina-embeddings-v3', 'jina-embeddings-v2-base-en', 'jina-clip-v2'];
const RERANK_MODELS = ['jina-reranker-v2-base-multilingual', 'jina-reranker-m0', 'jina-colbert-v2'];

/** FastAPI's 422 body for one missing or invalid field. */
const unprocessable = (loc: string[], msg: string, type = 'missing') => new JinaError(422, [{ type, loc: ['body', ...loc], msg, input: null }]);

const textOf = (d: unknown): string => (typeof d === 'string' ? d : isRecord(d) && typeof d.text === 'string' ? d.text : '');

/** Tokens the fake counts: one per word. */
export function jinaTokens(texts: string[]): number {
  return texts.reduce((n, t) => n + words(t).length, 0);
}

/**
 * A fake Jina AI API on loopback (providers-international §8.3): `POST /v1/embeddings` (OpenAI
 * shape, `usage.total_tokens` and `prompt_tokens`) and `POST /v1/rerank` (`results` with
 * `relevance_score`, documents when asked, `usage.total_tokens`). Bearer keys are checked; errors
 * are FastAPI's `{"detail": …}` (a string, or the 422 list of field problems).
 */
export async function startFakeJina(opts: { port?: number; host?: string; apiKeys?: string[] } = {}): Promise<FakeJina> {
  const requests: JinaRecordedRequest[] = [];

  function embeddings(body: Record<string, unknown>): Record<string, unknown> {
    if (typeof body.model !== 'string') throw unprocessable(['model'], 'Field required');
    if (!EMBEDDING_MODELS.includes(body.model)) throw new JinaError(400, `Model ${body.model} is not available for embeddings`);
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0) throw unprocessable(['input'], 'Field required');
    const texts = input.map(textOf);
    const dims = typeof body.dimensions === 'number' ? body.dimensions : 8;
    const tokens = jinaTokens(texts);
    const template = documented('embeddings.response');
    const item = (template.data as Obj[])[0]!;
    return { ...template, model: body.model, usage: { ...(template.usage as Obj), total_tokens: tokens, prompt_tokens: tokens }, data: texts.map((t, index) => ({ ...item, index, embedding: fakeEmbedding(t, dims) })) };
  }

  function rerank(body: Record<string, unknown>): Record<string, unknown> {
    if (typeof body.model !== 'string') throw unprocessable(['model'], 'Field required');
    if (!RERANK_MODELS.includes(body.model)) throw new JinaError(400, `Model ${body.model} is not available for reranking`);
    if (typeof body.query !== 'string') throw unprocessable(['query'], 'Field required');
    if (!Array.isArray(body.documents) || body.documents.length === 0) throw unprocessable(['documents'], 'Field required');
    const docs = body.documents.map(textOf);
    const topN = typeof body.top_n === 'number' ? body.top_n : undefined;
    const withDocs = body.return_documents !== false;
    const results = rankDocuments(body.query, docs, topN).map((r) => (withDocs ? { ...r, document: { text: docs[r.index] } } : r));
    return { ...documented('rerank.response'), model: body.model, usage: { total_tokens: jinaTokens([body.query, ...docs]) }, results };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const { body } = await readJsonBody(req);
    const record: JinaRecordedRequest = { path, headers: req.headers, body };
    requests.push(record);
    try {
      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      if (!auth || (opts.apiKeys && !opts.apiKeys.includes(auth[1]!))) throw new JinaError(BAD_KEY.status!, (BAD_KEY.body as { detail: string }).detail);
      if (req.method !== 'POST' || (path !== '/v1/embeddings' && path !== '/v1/rerank')) throw new JinaError(404, 'Not Found');
      if (!isRecord(body)) throw new JinaError(422, [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null }]);
      const reply = path === '/v1/embeddings' ? embeddings(body) : rerank(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    } catch (err) {
      if (!(err instanceof JinaError)) throw err;
      record.rejected = { status: err.status, detail: err.detail };
      res.writeHead(err.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: err.detail }));
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: `Fake upstream bug: ${String(err)}` }));
  });
  return { ...listening, requests };
}
