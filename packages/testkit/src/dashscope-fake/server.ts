import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { fakeEmbedding, words } from '../rerank-scores.js';
import { CompatibleError, compatibleChat, compatibleEmbeddings } from './compatible.js';
import { ImageTasks, TaskError } from './tasks.js';

export const FAKE_QWEN_WORDS = ['Hello', 'from', 'the', 'fake', 'Qwen', 'model', 'at', 'your', 'service', 'today'];
/** What the fake answers when the request enabled web search. */
export const FAKE_QWEN_SEARCH_WORDS = ['Searched', 'the', 'web', 'for', 'you'];
export const FAKE_DASHSCOPE_KEY = 'sk-fakedashscope0123456789';

export interface DashScopeRecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; code: string; message: string };
}

export interface FakeDashScopeFault {
  status?: number;
  code?: string;
  message?: string;
  /** Streams: one frame, then `event:error` with the error object. */
  inStream?: boolean;
  times?: number;
}

export interface FakeDashScope extends ListeningFake {
  requests: DashScopeRecordedRequest[];
  setFault(f: FakeDashScopeFault | null): void;
  /** Image tasks finish on this poll (earlier polls answer RUNNING); default 2. */
  setTaskPolls(n: number): void;
}

class DashScopeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
type Obj = Record<string, unknown>;

/**
 * DashScope's documented bodies (server/src/relay/adapters/ali/fixtures) are the fake's templates:
 * answers, stream frames and errors are fixtures with this request's values put in.
 */
const fixtureBody = (name: string): Obj => providerFixture('ali', name).body as Obj;
/** A documented error's code and words (and its status, for the fixtures that are HTTP errors). */
function documentedError(name: string): { status: number; code: string; message: string } {
  const fx = providerFixture('ali', name);
  const body = (fx.body ?? fx.events?.[0]) as { code: string; message: string };
  return { status: fx.status ?? 400, code: body.code, message: body.message };
}
/** The documented answer's first choice, with this answer's text and finish. */
function documentedChoice(text: string, finish: string): Obj {
  const choice = ((fixtureBody('chat.response').output as Obj).choices as Obj[])[0]!;
  return { ...choice, message: { ...(choice.message as Obj), content: text }, finish_reason: finish };
}
const bad = (message: string) => new DashScopeError(400, 'InvalidParameter', message);
const CHAT_MODELS = new Set(['qwen-turbo', 'qwen-plus', 'qwen-max', 'qwen-max-longcontext', 'qwen-long']);
const EMBED_MODELS = new Set(['text-embedding-v1', 'text-embedding-v2', 'text-embedding-v3']);
const PARAMS = new Set(['result_format', 'incremental_output', 'enable_search', 'seed', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'tools', 'tool_choice', 'presence_penalty', 'repetition_penalty']);

/** Input tokens the fake bills: one per word of every message. */
export function dashscopePromptTokens(body: Record<string, unknown>): number {
  const input = isRecord(body.input) ? body.input : {};
  const msgs = Array.isArray(input.messages) ? input.messages : [];
  return msgs.reduce<number>((n, m) => n + (isRecord(m) && typeof m.content === 'string' ? words(m.content).length : 0), 0);
}

/**
 * A fake DashScope on loopback (reference §2): text-generation
 * (`/api/v1/services/aigc/text-generation/generation`; SSE only with `X-DashScope-SSE: enable`,
 * frames `id:/event:result/:HTTP_STATUS/200/data:` with `finish_reason:"null"` until the end and a
 * cumulative usage, whole text per frame unless `incremental_output`), text-embedding, the async
 * text2image task (tasks.ts) and the OpenAI-compatible mode under `/compatible-mode/v1` (compatible.ts). Bearer
 * keys checked; errors `{code, message, request_id}` with a 4xx, or `event:error` in a stream.
 */
export async function startFakeDashScope(opts: { port?: number; host?: string; apiKeys?: string[] } = {}): Promise<FakeDashScope> {
  const requests: DashScopeRecordedRequest[] = [];
  const keys = opts.apiKeys ?? [FAKE_DASHSCOPE_KEY];
  let fault: FakeDashScopeFault | null = null;
  let faultUses = 0;
  let origin = '';
  const tasks = new ImageTasks(() => origin);

  function chat(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>, f: FakeDashScopeFault | undefined): void {
    if (!CHAT_MODELS.has(String(body.model))) throw new DashScopeError(400, 'InvalidParameter', 'Model not exist.');
    const input = body.input;
    if (!isRecord(input) || !Array.isArray(input.messages) || input.messages.length === 0) throw bad('Input should contain messages.');
    for (const m of input.messages) if (!isRecord(m) || !['system', 'user', 'assistant', 'tool'].includes(String(m.role)) || typeof m.content !== 'string') throw bad('Role must be in [user, assistant, system, tool] and content a string');
    const p = isRecord(body.parameters) ? body.parameters : {};
    for (const k of Object.keys(p)) if (!PARAMS.has(k)) throw bad(`Unknown parameter: ${k}`);
    if (p.top_p !== undefined && !(typeof p.top_p === 'number' && p.top_p > 0 && p.top_p < 1)) throw bad('Range of top_p should be (0.0, 1.0)');
    const reply = (p.enable_search === true ? FAKE_QWEN_SEARCH_WORDS : FAKE_QWEN_WORDS).slice(0, typeof p.max_tokens === 'number' ? Math.min(5, p.max_tokens) : 5);
    const requestId = randomUUID();
    const prompt = dashscopePromptTokens(body);
    const usage = (n: number) => ({ total_tokens: prompt + n, input_tokens: prompt, output_tokens: n });
    const finish = reply.length < 5 ? 'length' : 'stop';
    const legacy = p.result_format !== 'message';
    // The older `output:{text,finish_reason}` form (no result_format) has no fixture: it is built here.
    const output = (text: string, fin: string) => (legacy ? { text, finish_reason: fin } : { choices: [documentedChoice(text, fin)] });
    const answer = (text: string, fin: string, n: number) => JSON.stringify({ ...fixtureBody('chat.response'), output: output(text, fin), usage: usage(n), request_id: requestId });
    if (req.headers['x-dashscope-sse'] !== 'enable') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer(reply.join(' '), finish, reply.length));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8', 'cache-control': 'no-cache' });
    const inc = p.incremental_output === true;
    if (f?.inStream) {
      const documented = documentedError('chat.stream.error');
      res.write(`id:1\nevent:result\n:HTTP_STATUS/200\ndata:${answer(reply[0]!, 'null', 1)}\n\n`);
      res.end(`id:2\nevent:error\n:HTTP_STATUS/${f.status ?? 400}\ndata:${JSON.stringify({ code: f.code ?? documented.code, message: f.message ?? documented.message, request_id: requestId })}\n\n`);
      return;
    }
    reply.forEach((w, i) => {
      const text = inc ? (i === 0 ? w : ` ${w}`) : reply.slice(0, i + 1).join(' ');
      res.write(`id:${i + 1}\nevent:result\n:HTTP_STATUS/200\ndata:${answer(text, i === reply.length - 1 ? finish : 'null', i + 1)}\n\n`);
    });
    res.end();
  }

  function embed(res: ServerResponse, body: Record<string, unknown>): void {
    if (!EMBED_MODELS.has(String(body.model))) throw new DashScopeError(400, 'InvalidParameter', 'Model not exist.');
    const texts = isRecord(body.input) ? body.input.texts : undefined;
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) throw bad('input.texts should be a non-empty list of strings');
    if (texts.length > 25) throw bad('batch size is invalid, it should not be larger than 25.');
    const dims = isRecord(body.parameters) && typeof body.parameters.dimension === 'number' ? body.parameters.dimension : 8;
    const total = (texts as string[]).reduce((n, t) => n + words(t).length, 0);
    res.writeHead(200, { 'content-type': 'application/json' });
    const documented = fixtureBody('embeddings.response');
    const item = ((documented.output as Obj).embeddings as Obj[])[0]!;
    res.end(JSON.stringify({ ...documented, output: { embeddings: (texts as string[]).map((t, text_index) => ({ ...item, text_index, embedding: fakeEmbedding(t, dims) })) }, usage: { total_tokens: total }, request_id: randomUUID() }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const { body } = await readJsonBody(req);
    const record: DashScopeRecordedRequest = { path, headers: req.headers, body };
    requests.push(record);
    try {
      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      if (!auth || !keys.includes(auth[1]!)) {
        if (path.startsWith('/compatible-mode/')) throw new CompatibleError(401, 'invalid_api_key', 'Incorrect API key provided. ');
        const documented = documentedError('error.invalid-api-key');
        throw new DashScopeError(documented.status, documented.code, documented.message);
      }
      const taskPoll = /^\/api\/v1\/tasks\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && taskPoll) return tasks.poll(res, decodeURIComponent(taskPoll[1]!));
      if (!isRecord(body)) throw bad('The request body is not a JSON object.');
      let f: FakeDashScopeFault | undefined;
      if (fault && (fault.times === undefined || faultUses < fault.times)) {
        faultUses += 1;
        f = fault;
        const documented = documentedError('error.throttling');
        if (!f.inStream) throw new DashScopeError(f.status ?? documented.status, f.code ?? documented.code, f.message ?? documented.message);
      }
      if (req.method === 'POST' && path === '/api/v1/services/aigc/text-generation/generation') return chat(req, res, body, f);
      if (req.method === 'POST' && path === '/api/v1/services/embeddings/text-embedding/text-embedding') return embed(res, body);
      if (req.method === 'POST' && path === '/api/v1/services/aigc/text2image/image-synthesis') return tasks.submit(req, res, body);
      if (req.method === 'POST' && path === '/compatible-mode/v1/chat/completions') return compatibleChat(res, body, FAKE_QWEN_WORDS.slice(0, 5), CHAT_MODELS);
      if (req.method === 'POST' && path === '/compatible-mode/v1/embeddings') return compatibleEmbeddings(res, body, EMBED_MODELS);
      throw new DashScopeError(404, 'NotFound', `Not found: ${path}`);
    } catch (err) {
      if (err instanceof CompatibleError) {
        record.rejected = { status: err.status, code: err.code, message: err.message };
        res.writeHead(err.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(err.body()));
        return;
      }
      if (!(err instanceof DashScopeError) && !(err instanceof TaskError)) throw err;
      record.rejected = { status: err.status, code: err.code, message: err.message };
      res.writeHead(err.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...fixtureBody('error.invalid-api-key'), code: err.code, message: err.message, request_id: randomUUID() }));
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'InternalError', message: `Fake upstream bug: ${String(err)}`, request_id: randomUUID() }));
  });
  origin = listening.url;
  return {
    ...listening,
    requests,
    setTaskPolls: (n) => {
      tasks.pollsToFinish = n;
    },
    setFault: (f) => {
      fault = f;
      faultUses = 0;
    },
  };
}
