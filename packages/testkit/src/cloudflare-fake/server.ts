import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { startFakeOpenAI } from '../openai-fake/server.js';
import type { FakeOpenAI } from '../openai-fake/types.js';
import { providerFixture } from '../provider-fixtures.js';

export interface CloudflareRecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; code: number; message: string };
}

export interface FakeCloudflare extends ListeningFake {
  /** The account id the fake serves. */
  accountId: string;
  requests: CloudflareRecordedRequest[];
}

export interface FakeCloudflareOptions {
  port?: number;
  host?: string;
  /** The account in `/client/v4/accounts/{id}/…`; default a fixed 32-hex id. */
  accountId?: string;
  /** Accepted API tokens (`Authorization: Bearer …`); default any. */
  apiTokens?: string[];
  /** Content words (= completion tokens) per chat reply; default 5. */
  chunkCount?: number;
}

export const FAKE_CLOUDFLARE_ACCOUNT = '0123456789abcdef0123456789abcdef';

class CloudflareError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
/**
 * Cloudflare's documented v4 envelope (server/src/relay/adapters/cloudflare/fixtures) is the
 * template of every refusal: `result`, `success` and `messages` as documented, this refusal's code and message.
 */
const envelope = (name: string): Obj => providerFixture('cloudflare', name).body as Obj;
const errorBody = (code: number, message: string): Obj => ({ ...envelope('error.authentication'), errors: [{ code, message }] });
const documentedError = (name: string): CloudflareError => {
  const f = providerFixture('cloudflare', name);
  const e = (f.body as { errors: Array<{ code: number; message: string }> }).errors[0]!;
  return new CloudflareError(f.status!, e.code, e.message);
};
const AUTHENTICATION = documentedError('error.authentication');
const NO_SUCH_MODEL = documentedError('error.model-not-found');

/** The OpenAI-compatible routes of Workers AI, under the account. */
const ROUTE = /^\/client\/v4\/accounts\/([^/]+)\/ai\/v1\/(chat\/completions|embeddings)$/;

/**
 * A fake Cloudflare Workers AI API on loopback (providers-international §7): the OpenAI-compatible
 * `POST /client/v4/accounts/{account}/ai/v1/chat/completions` and `/ai/v1/embeddings`. The account
 * and the Bearer token are checked and refused in Cloudflare's own envelope
 * (`{result:null,success:false,errors:[{code,message}],messages:[]}`, code 10000 for auth); models
 * must be Workers AI names (`@cf/…`, `@hf/…`). The OpenAI wire (bodies, SSE, `[DONE]`) is served by
 * an inner OpenAI fake, since that is the format this endpoint speaks.
 */
export async function startFakeCloudflare(opts: FakeCloudflareOptions = {}): Promise<FakeCloudflare> {
  const accountId = opts.accountId ?? FAKE_CLOUDFLARE_ACCOUNT;
  const requests: CloudflareRecordedRequest[] = [];
  const inner: FakeOpenAI = await startFakeOpenAI({ chunkCount: opts.chunkCount ?? 5, maxRecordedRequests: 100 });

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const { text, body } = await readJsonBody(req);
    const record: CloudflareRecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(record);
    try {
      const route = ROUTE.exec(path);
      if (!route || req.method !== 'POST') throw new CloudflareError(404, 7000, 'No route for that URI');
      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      if (!auth || (opts.apiTokens && !opts.apiTokens.includes(auth[1]!))) throw AUTHENTICATION;
      // Another account's id: the same documented error, as a 403.
      if (route[1] !== accountId) throw new CloudflareError(403, AUTHENTICATION.code, AUTHENTICATION.message);
      if (typeof body !== 'object' || body === null) throw new CloudflareError(400, 5006, 'Could not parse input');
      const model = (body as { model?: unknown }).model;
      if (typeof model !== 'string' || !/^@(cf|hf)\//.test(model)) throw new CloudflareError(NO_SUCH_MODEL.status, NO_SUCH_MODEL.code, NO_SUCH_MODEL.message.replace(/^No such model \S+/, `No such model ${String(model)}`));
      const upstream = await fetch(`${inner.url}/v1/${route[2]}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer inner' }, body: text, signal });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      if (upstream.body) for await (const chunk of Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream<Uint8Array>)) res.write(chunk);
      res.end();
    } catch (err) {
      if (!(err instanceof CloudflareError)) throw err;
      record.rejected = { status: err.status, code: err.code, message: err.message };
      res.writeHead(err.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody(err.code, err.message)));
    }
  }

  const listening = await serveFake(opts, handle, (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify(errorBody(7500, `Fake upstream bug: ${String(err)}`)));
  });
  return {
    ...listening,
    accountId,
    requests,
    close: async () => {
      await listening.close();
      await inner.close();
    },
  };
}
