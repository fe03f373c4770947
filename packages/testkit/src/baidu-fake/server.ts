import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { fakeEmbedding, words } from '../rerank-scores.js';

export const FAKE_BAIDU_WORDS = ['Hello', 'from', 'the', 'fake', 'ERNIE', 'model', 'at', 'your', 'service', 'today'];
/** The application key pair the fake accepts unless told otherwise (`APIKey|SecretKey`). */
export const FAKE_BAIDU_KEY = 'fakeBaiduApiKey01|fakeBaiduSecretKey01';

export interface BaiduRecordedRequest {
  kind: 'token' | 'chat' | 'embeddings' | 'other';
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; code: number | string; message: string };
}

export interface FakeBaiduFault {
  /** Answer the next model calls with this `{error_code, error_msg}` (HTTP 200, as Baidu does). */
  errorCode: number;
  message?: string;
  times?: number;
}

export interface FakeBaidu extends ListeningFake {
  requests: BaiduRecordedRequest[];
  /** Access tokens issued so far. */
  tokensIssued(): number;
  /** Every token issued so far stops working (the next model call answers error 111). */
  expireTokens(): void;
  setFault(f: FakeBaiduFault | null): void;
}

class BaiduError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * Baidu's documented bodies (server/src/relay/adapters/baidu/fixtures) are the fake's templates:
 * every answer, frame and error is a fixture with this request's values put in.
 */
const template = (name: string) => providerFixture('baidu', name);
const bodyOf = (name: string): Record<string, unknown> => template(name).body as Record<string, unknown>;
/** The documented error of a code the fake raises (its wording), else the error shape with the fake's words. */
const ERROR_FIXTURES: Record<number, string> = { 110: 'error.token-invalid', 111: 'error.token-expired', 18: 'error.rate-limit', 3: 'error.unknown-endpoint', 336003: 'error.bad-messages' };
function errorBody(code: number, message: string): Record<string, unknown> {
  return { ...bodyOf(ERROR_FIXTURES[code] ?? 'error.rate-limit'), error_code: code, error_msg: message };
}

const CHAT_ENDPOINTS = new Set(['completions_pro', 'completions', 'ernie-4.0-turbo-8k', 'ernie-3.5-128k', 'eb-instant', 'ernie_speed', 'ernie-speed-128k', 'ernie-lite-8k', 'ernie-tiny-8k', 'ernie_bot_8k', 'bloomz_7b1']);
const EMBED_ENDPOINTS = new Set(['embedding-v1', 'bge_large_zh', 'bge_large_en', 'tao_8k']);

/** Prompt tokens the fake bills: one per word of every turn and of the system text. */
export function baiduPromptTokens(body: Record<string, unknown>): number {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const turns = msgs.reduce<number>((n, m) => n + (isRecord(m) && typeof m.content === 'string' ? words(m.content).length : 0), 0);
  return turns + (typeof body.system === 'string' ? words(body.system).length : 0);
}

/**
 * A fake Baidu Wenxin workshop on loopback (reference §1): the OAuth client-credentials token
 * endpoint (`POST /oauth/2.0/token`), chat (`/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/{endpoint}`,
 * JSON or `data: {…}` frames with `is_end`) and embeddings, authorised by `?access_token=`. Errors are
 * HTTP 200 `{error_code, error_msg}` (110 invalid token, 111 expired, 336003 bad parameters, 3
 * unknown endpoint); a refused client is `{error, error_description}`.
 */
export async function startFakeBaidu(opts: { port?: number; host?: string; apiKeys?: string[]; expiresIn?: number } = {}): Promise<FakeBaidu> {
  const requests: BaiduRecordedRequest[] = [];
  const clients = new Map((opts.apiKeys ?? [FAKE_BAIDU_KEY]).map((k) => [k.split('|')[0]!, k.split('|')[1]!]));
  const live = new Set<string>();
  const expired = new Set<string>();
  let issued = 0;
  let fault: FakeBaiduFault | null = null;
  let faultUses = 0;

  function json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  function token(res: ServerResponse, q: Record<string, string>, record: BaiduRecordedRequest): void {
    const fail = (error: string, description: string) => {
      const fx = template('error.token-client');
      record.rejected = { status: fx.status!, code: error, message: description };
      json(res, fx.status!, { ...(fx.body as object), error, error_description: description });
    };
    if (q.grant_type !== 'client_credentials') return fail('unsupported_grant_type', 'unsupported grant type');
    const secret = clients.get(q.client_id ?? '');
    if (secret === undefined) return fail('invalid_client', 'unknown client id');
    if (secret !== q.client_secret) return fail('invalid_client', 'Client authentication failed');
    issued += 1;
    const access = `24.${randomBytes(16).toString('hex')}.${opts.expiresIn ?? 2592000}.${Math.floor(Date.now() / 1000)}-${issued}`;
    live.add(access);
    json(res, 200, { ...bodyOf('token.response'), refresh_token: `25.${randomBytes(16).toString('hex')}`, expires_in: opts.expiresIn ?? 2592000, session_key: randomBytes(8).toString('hex'), access_token: access });
  }

  function validateChat(body: Record<string, unknown>): void {
    const msgs = body.messages;
    if (!Array.isArray(msgs) || msgs.length === 0) throw new BaiduError(336003, 'the messages field is required');
    if (msgs.length % 2 === 0) throw new BaiduError(336003, 'the length of messages must be an odd number');
    msgs.forEach((m, i) => {
      if (!isRecord(m) || m.role !== (i % 2 === 0 ? 'user' : 'assistant') || typeof m.content !== 'string') throw new BaiduError(336003, 'the role of message with odd index in the messages must be user, with even index must be assistant');
    });
    if (body.system !== undefined && typeof body.system !== 'string') throw new BaiduError(336003, 'system must be a string');
    if (body.temperature !== undefined && !(typeof body.temperature === 'number' && body.temperature > 0 && body.temperature <= 1)) throw new BaiduError(336003, 'temperature range is (0, 1.0]');
    if (body.top_p !== undefined && !(typeof body.top_p === 'number' && body.top_p >= 0 && body.top_p <= 1)) throw new BaiduError(336003, 'top_p range is [0, 1.0]');
    if (body.penalty_score !== undefined && !(typeof body.penalty_score === 'number' && body.penalty_score >= 1 && body.penalty_score <= 2)) throw new BaiduError(336003, 'penalty_score range is [1.0, 2.0]');
    if (body.max_output_tokens !== undefined && !(Number.isInteger(body.max_output_tokens) && (body.max_output_tokens as number) >= 2 && (body.max_output_tokens as number) <= 2048)) throw new BaiduError(336003, 'max_output_tokens range is [2, 2048]');
    if (body.stop !== undefined && !(Array.isArray(body.stop) && body.stop.every((s) => typeof s === 'string'))) throw new BaiduError(336003, 'stop must be a list of strings');
  }

  function chat(res: ServerResponse, body: Record<string, unknown>): void {
    validateChat(body);
    const id = `as-${randomBytes(5).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const prompt = baiduPromptTokens(body);
    const max = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
    const reply = FAKE_BAIDU_WORDS.slice(0, max !== undefined ? Math.min(5, max) : 5);
    const finish = reply.length < 5 ? 'length' : 'normal';
    if (body.stream !== true) {
      return json(res, 200, { ...bodyOf('chat.response'), id, created, result: reply.join(' '), is_truncated: finish === 'length', finish_reason: finish, usage: { prompt_tokens: prompt, completion_tokens: reply.length, total_tokens: prompt + reply.length } });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream;charset=utf-8', 'cache-control': 'no-cache' });
    // The documented frames: a middle one (no finish_reason) and the last (is_end, finish_reason).
    const [middle, last] = template('chat.stream').events as Array<Record<string, unknown>>;
    reply.forEach((w, i) => {
      const end = i === reply.length - 1;
      const frame = { ...(end ? last : middle), id, created: created + i, sentence_id: i, is_end: end, result: i === 0 ? w : ` ${w}`, ...(end ? { finish_reason: finish } : {}), usage: { prompt_tokens: prompt, completion_tokens: i + 1, total_tokens: prompt + i + 1 } };
      res.write(`data: ${JSON.stringify(frame)}\n\n`);
    });
    res.end();
  }

  function embeddings(res: ServerResponse, body: Record<string, unknown>): void {
    const input = body.input;
    if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === 'string')) throw new BaiduError(336003, 'input must be a non-empty list of strings');
    if (input.length > 16) throw new BaiduError(336003, 'the number of input texts must not exceed 16');
    const tokens = (input as string[]).reduce((n, t) => n + words(t).length, 0);
    const documented = bodyOf('embeddings.response');
    const item = (documented.data as Array<Record<string, unknown>>)[0]!;
    json(res, 200, { ...documented, id: `as-${randomBytes(5).toString('hex')}`, created: Math.floor(Date.now() / 1000), data: (input as string[]).map((t, index) => ({ ...item, embedding: fakeEmbedding(t, 8), index })), usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const query = Object.fromEntries(url.searchParams);
    const { body } = await readJsonBody(req);
    const m = /^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/(chat|embeddings)\/([^/]+)$/.exec(path);
    const record: BaiduRecordedRequest = { kind: path === '/oauth/2.0/token' ? 'token' : m ? (m[1] as 'chat' | 'embeddings') : 'other', path, query, headers: req.headers, body };
    requests.push(record);
    if (req.method === 'POST' && record.kind === 'token') return token(res, query, record);
    try {
      if (req.method !== 'POST' || !m) throw new BaiduError(3, 'Unsupported openapi method');
      const access = query.access_token ?? '';
      if (expired.has(access)) throw new BaiduError(111, 'Access token expired');
      if (!live.has(access)) throw new BaiduError(110, 'Access token invalid or no longer valid');
      if (!isRecord(body)) throw new BaiduError(336003, 'the request body must be a JSON object');
      if (fault && (fault.times === undefined || faultUses < fault.times)) {
        faultUses += 1;
        throw new BaiduError(fault.errorCode, fault.message ?? 'Open api qps request limit reached');
      }
      const endpoint = decodeURIComponent(m[2]!);
      if (m[1] === 'chat' && CHAT_ENDPOINTS.has(endpoint)) return chat(res, body);
      if (m[1] === 'embeddings' && EMBED_ENDPOINTS.has(endpoint)) return embeddings(res, body);
      throw new BaiduError(3, 'Unsupported openapi method');
    } catch (err) {
      if (!(err instanceof BaiduError)) throw err;
      record.rejected = { status: 200, code: err.code, message: err.message };
      json(res, 200, errorBody(err.code, err.message));
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => json(res, 500, { error_code: 1, error_msg: `Fake upstream bug: ${String(err)}` }));
  return {
    ...listening,
    requests,
    tokensIssued: () => issued,
    expireTokens: () => {
      for (const t of live) expired.add(t);
      live.clear();
    },
    setFault: (f) => {
      fault = f;
      faultUses = 0;
    },
  };
}
