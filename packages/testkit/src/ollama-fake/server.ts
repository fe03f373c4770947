import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { startFakeOpenAI } from '../openai-fake/server.js';
import type { FakeOpenAI } from '../openai-fake/types.js';
import { providerFixture } from '../provider-fixtures.js';

export interface OllamaRecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; error: string };
}

export interface FakeOllama extends ListeningFake {
  requests: OllamaRecordedRequest[];
}

export interface FakeOllamaOptions {
  port?: number;
  host?: string;
  /** Models pulled locally (served by `/api/tags`; others answer "not found"); default a chat and an embedding model. */
  models?: string[];
  /** Embedding dimensions; default 8. */
  dimensions?: number;
  /** Content words (= completion tokens) per chat reply; default 5. */
  chunkCount?: number;
}

export const FAKE_OLLAMA_MODELS = ['llama3.2:latest', 'nomic-embed-text:latest'];

class OllamaError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Refused on the OpenAI-compatible `/v1` surface. */
    readonly openai = false,
  ) {
    super(message);
  }
}

/** Ollama's own count for an embed input: one token per whitespace-separated word, plus BOS/EOS. */
export function ollamaEmbedTokens(texts: string[]): number {
  return texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length + 2, 0);
}

/** A deterministic unit vector of `dims` values for a text. */
export function ollamaEmbedding(text: string, dims: number): number[] {
  let seed = 0;
  for (const ch of text) seed = (seed * 31 + ch.codePointAt(0)!) >>> 0;
  const v = Array.from({ length: dims }, (_, i) => Math.sin(seed + i * 1.7));
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => Math.fround(x / norm));
}

type Obj = Record<string, unknown>;
/**
 * Ollama's documented bodies (server/src/relay/adapters/ollama/fixtures) are the fake's templates:
 * `/api/tags`, `/api/embed` and the error bodies of both surfaces, with this call's values put in.
 */
const documented = (name: string): Obj => providerFixture('ollama', name).body as Obj;
const NOT_FOUND_STATUS = providerFixture('ollama', 'error.model-not-found').status!;
/** The documented "not pulled" message, naming the asked model. */
const notPulled = (model: unknown): string => String(documented('error.model-not-found').error).replace(/"[^"]*"/, `"${String(model)}"`);

const known = (models: string[], name: unknown) => typeof name === 'string' && (models.includes(name) || models.includes(`${name}:latest`));

/**
 * A fake Ollama server on loopback (providers-international §8.2): the native `POST /api/embed`
 * (`{model,input}` → `{model,embeddings,total_duration,load_duration,prompt_eval_count}`) and
 * `GET /api/tags`, with Ollama's `{"error":"model \"x\" not found, try pulling it first"}` 404s; its
 * OpenAI-compatible `/v1/chat/completions`, `/v1/completions` and `/v1/embeddings` are served by an
 * inner OpenAI fake (that surface is the OpenAI wire). Ollama has no authentication.
 */
export async function startFakeOllama(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = opts.models ?? FAKE_OLLAMA_MODELS;
  const dims = opts.dimensions ?? 8;
  const requests: OllamaRecordedRequest[] = [];
  const inner: FakeOpenAI = await startFakeOpenAI({ chunkCount: opts.chunkCount ?? 5, maxRecordedRequests: 100 });

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const { text, body } = await readJsonBody(req);
    const record: OllamaRecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(record);
    try {
      if (req.method === 'GET' && path === '/api/tags') {
        const now = '2025-01-15T10:00:00.000000000Z';
        const template = (documented('tags.response').models as Obj[])[0]!;
        const details = { ...(template.details as Obj), format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '3B', quantization_level: 'Q4_K_M' };
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ models: models.map((m) => ({ ...template, name: m, model: m, modified_at: now, size: 1_000_000, digest: 'sha256:' + '0'.repeat(64), details })) }));
        return;
      }
      if (req.method === 'POST' && path === '/api/embed') {
        if (typeof body !== 'object' || body === null) throw new OllamaError(400, 'invalid request body');
        const b = body as { model?: unknown; input?: unknown };
        if (typeof b.model !== 'string' || !b.model) throw new OllamaError(400, 'model is required');
        if (!known(models, b.model)) throw new OllamaError(NOT_FOUND_STATUS, notPulled(b.model));
        const texts = typeof b.input === 'string' ? [b.input] : Array.isArray(b.input) && b.input.every((s) => typeof s === 'string') ? (b.input as string[]) : undefined;
        if (!texts) throw new OllamaError(400, 'invalid input type');
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        // The documented durations stay; the model, vectors and token count are this call's.
        res.end(JSON.stringify({ ...documented('embed.response'), model: b.model, embeddings: texts.map((t) => ollamaEmbedding(t, dims)), prompt_eval_count: ollamaEmbedTokens(texts) }));
        return;
      }
      const openai = /^\/v1\/(chat\/completions|completions|embeddings)$/.exec(path);
      if (!openai || req.method !== 'POST') throw new OllamaError(404, '404 page not found');
      const model = (body as { model?: unknown } | undefined)?.model;
      if (!known(models, model)) throw new OllamaError(NOT_FOUND_STATUS, notPulled(model), true);
      const upstream = await fetch(`${inner.url}/v1/${openai[1]}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer inner' }, body: text, signal });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      if (upstream.body) for await (const chunk of Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream<Uint8Array>)) res.write(chunk);
      res.end();
    } catch (err) {
      if (!(err instanceof OllamaError)) throw err;
      record.rejected = { status: err.status, error: err.message };
      res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8' });
      // The `/v1` surface wraps the message in OpenAI's error object; the native API sends it alone.
      res.end(JSON.stringify(err.openai ? { error: { ...(documented('error.openai-surface').error as Obj), message: err.message } } : { ...documented('error.model-not-found'), error: err.message }));
    }
  }

  const listening = await serveFake(opts, handle, (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `fake upstream bug: ${String(err)}` }));
  });
  return {
    ...listening,
    requests,
    close: async () => {
      await listening.close();
      await inner.close();
    },
  };
}
