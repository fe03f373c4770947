import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { fakeEmbedding, words } from '../rerank-scores.js';

export const FAKE_ZHIPU_WORDS = ['Hello', 'from', 'the', 'fake', 'Zhipu', 'model', 'at', 'your', 'service', 'today'];
export const FAKE_ZHIPU_TOOL_ARGS = { location: 'Beijing', unit: 'celsius' };
/** The key the fake accepts unless told otherwise (`id.secret`). */
export const FAKE_ZHIPU_KEY = 'fakezhipuid.fakezhipusecret0123';

export interface ZhipuRecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The verified JWT's header and payload. */
  jwt?: { header: Record<string, unknown>; payload: Record<string, unknown> };
  rejected?: { status: number; code: string; message: string };
}

export interface FakeZhipuFault {
  /** v4: this HTTP status with `{"error":{code,message}}`; v3: a 200 `{code,msg,success:false}`. */
  status?: number;
  code?: string;
  message?: string;
  /** v3 streams: one `add` event, then `event:error` carrying the message. */
  inStream?: boolean;
  times?: number;
}

export interface FakeZhipu extends ListeningFake {
  requests: ZhipuRecordedRequest[];
  setFault(f: FakeZhipuFault | null): void;
}

class ZhipuError extends Error {
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
 * Zhipu's documented bodies (server/src/relay/adapters/zhipu/fixtures) are the fake's templates:
 * answers, stream chunks and events, and error envelopes are fixtures with this request's values put in.
 */
const fixtureBody = (name: string): Obj => providerFixture('zhipu', name).body as Obj;
const fixtureEvents = (name: string): Obj[] => providerFixture('zhipu', name).events as Obj[];
/** A documented v4 error's code and words. */
const v4Error = (name: string): { status: number; code: string; message: string } => {
  const fx = providerFixture('zhipu', name);
  const e = (fx.body as { error: { code: string; message: string } }).error;
  return { status: fx.status!, code: e.code, message: e.message };
};
const ILLEGAL_TOKEN = v4Error('v4.error.auth');
const UNKNOWN_MODEL = v4Error('v4.error.unknown-model');
const ARREARS = v4Error('v4.error.arrears');

const bad = (message: string) => new ZhipuError(400, '1210', `API 调用参数有误，请检查文档。${message}`);
const V4_MODELS = new Set(['glm-4-plus', 'glm-4-0520', 'glm-4', 'glm-4-air', 'glm-4-airx', 'glm-4-long', 'glm-4-flash', 'glm-4v-plus', 'glm-4v', 'glm-3-turbo']);
const EMBED_MODELS = new Set(['embedding-2', 'embedding-3']);
const V3_MODELS = new Set(['chatglm_turbo', 'chatglm_pro', 'chatglm_std', 'chatglm_lite']);
const V4_FIELDS = new Set(['model', 'messages', 'stream', 'temperature', 'top_p', 'max_tokens', 'stop', 'tools', 'tool_choice', 'do_sample', 'request_id', 'user_id', 'response_format']);
const V3_FIELDS = new Set(['prompt', 'temperature', 'top_p', 'request_id', 'incremental', 'return_type', 'ref']);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
}

/** Prompt tokens the fake bills: one per word of every message (v4 `messages`, v3 `prompt`), +85 per image. */
export function zhipuPromptTokens(body: Record<string, unknown>): number {
  const msgs = Array.isArray(body.messages) ? body.messages : Array.isArray(body.prompt) ? body.prompt : [];
  return msgs.reduce<number>((n, m) => {
    if (!isRecord(m)) return n;
    const images = Array.isArray(m.content) ? m.content.filter((p) => isRecord(p) && p.type === 'image_url').length : 0;
    return n + words(textOf(m.content)).length + images * 85;
  }, 0);
}

const b64json = (s: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A fake Zhipu open platform on loopback (reference §4): v4 chat completions and embeddings under
 * `/api/paas/v4`, v3 `model-api/{model}/invoke|sse-invoke`. Every call must carry the HS256 JWT
 * made from an `id.secret` key (`sign_type: "SIGN"`, `api_key`, `exp` and `timestamp` in ms):
 * signature, header fields and expiry are verified, failures answered with Zhipu's codes
 * (1002 illegal token, 1003 expired, 1211 unknown model, 1210 bad parameters).
 */
export async function startFakeZhipu(opts: { port?: number; host?: string; apiKeys?: string[] } = {}): Promise<FakeZhipu> {
  const requests: ZhipuRecordedRequest[] = [];
  const secrets = new Map((opts.apiKeys ?? [FAKE_ZHIPU_KEY]).map((k) => [k.split('.')[0]!, k.split('.')[1]!]));
  let fault: FakeZhipuFault | null = null;
  let faultUses = 0;
  let counter = 0;

  function verify(req: IncomingMessage, record: ZhipuRecordedRequest): void {
    const raw = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!raw) throw new ZhipuError(401, '1001', 'Header中未收到Authorization参数，无法进行身份验证。');
    const [h, p, s] = raw.split('.');
    const header = h ? b64json(h) : undefined;
    const payload = p ? b64json(p) : undefined;
    if (!header || !payload || !s) throw new ZhipuError(ILLEGAL_TOKEN.status, ILLEGAL_TOKEN.code, ILLEGAL_TOKEN.message);
    if (header.alg !== 'HS256' || header.sign_type !== 'SIGN') throw new ZhipuError(ILLEGAL_TOKEN.status, ILLEGAL_TOKEN.code, ILLEGAL_TOKEN.message);
    const secret = secrets.get(String(payload.api_key));
    const want = secret ? createHmac('sha256', secret).update(`${h}.${p}`).digest() : undefined;
    const got = Buffer.from(s, 'base64url');
    if (!want || want.length !== got.length || !timingSafeEqual(want, got)) throw new ZhipuError(ILLEGAL_TOKEN.status, ILLEGAL_TOKEN.code, ILLEGAL_TOKEN.message);
    // Milliseconds, as the vendor documents: a seconds value would read as long expired.
    if (typeof payload.exp !== 'number' || payload.exp < Date.now() || typeof payload.timestamp !== 'number') throw new ZhipuError(401, '1003', 'Authorization Token已过期。');
    record.jwt = { header, payload };
  }

  function takeFault(): FakeZhipuFault | undefined {
    if (!fault || (fault.times !== undefined && faultUses >= fault.times)) return undefined;
    faultUses += 1;
    return fault;
  }

  function replyWords(max: unknown): string[] {
    return FAKE_ZHIPU_WORDS.slice(0, typeof max === 'number' ? Math.min(5, max) : 5);
  }

  function v4Chat(res: ServerResponse, body: Record<string, unknown>): void {
    for (const k of Object.keys(body)) if (!V4_FIELDS.has(k)) throw bad(`不支持的参数: ${k}`);
    if (!V4_MODELS.has(String(body.model))) throw new ZhipuError(UNKNOWN_MODEL.status, UNKNOWN_MODEL.code, UNKNOWN_MODEL.message);
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw bad('messages 不能为空');
    if (body.top_p !== undefined && !(typeof body.top_p === 'number' && body.top_p > 0 && body.top_p < 1)) throw bad('top_p 取值范围为 (0, 1)');
    if (body.stop !== undefined && !(Array.isArray(body.stop) && body.stop.every((x) => typeof x === 'string'))) throw bad('stop 必须是字符串列表');
    for (const m of body.messages) {
      if (!isRecord(m) || !Array.isArray(m.content)) continue;
      for (const part of m.content) {
        if (!isRecord(part) || part.type !== 'image_url') continue;
        const url = isRecord(part.image_url) ? String(part.image_url.url ?? '') : '';
        if (!String(body.model).startsWith('glm-4v')) throw bad('该模型不支持图片输入');
        if (!url || url.startsWith('data:')) throw bad('图片须为 URL 或 base64 编码（不带 data: 前缀）');
      }
    }
    const id = `2024${String(++counter).padStart(16, '0')}`;
    const created = Math.floor(Date.now() / 1000);
    const prompt = zhipuPromptTokens(body);
    const msgs = body.messages as unknown[];
    const last = msgs.at(-1);
    const tool = Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice !== 'none' && isRecord(last) && last.role === 'user' ? body.tools[0] : undefined;
    const toolName = isRecord(tool) && isRecord(tool.function) ? String(tool.function.name) : undefined;
    const args = JSON.stringify(FAKE_ZHIPU_TOOL_ARGS);
    const reply = replyWords(body.max_tokens);
    const completion = toolName ? words(args).length + 3 : reply.length;
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    const finish = toolName ? 'tool_calls' : reply.length < 5 ? 'length' : 'stop';
    const call = toolName ? { id: `call_${id}`, index: 0, type: 'function', function: { name: toolName, arguments: args } } : undefined;
    if (body.stream !== true) {
      const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: reply.join(' ') };
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      const documented = fixtureBody('v4.chat.response');
      const choice = (documented.choices as Obj[])[0]!;
      res.end(JSON.stringify({ ...documented, id, request_id: String(body.request_id ?? id), created, model: body.model, choices: [{ ...choice, index: 0, finish_reason: finish, message }], usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8', 'cache-control': 'no-cache' });
    // The documented chunks: a middle one, and the last with finish_reason and usage.
    const chunks = fixtureEvents('v4.chat.stream');
    const send = (choice: Obj, extra: Obj = {}) => {
      // The usage is this answer's (in `extra`), never the documented one.
      const template = { ...(extra.usage ? chunks.at(-1)! : chunks[0]!) };
      delete template.usage;
      res.write(`data: ${JSON.stringify({ ...template, id, created, model: body.model, choices: [{ index: 0, ...choice }], ...extra })}\n\n`);
    };
    if (call) send({ delta: { role: 'assistant', tool_calls: [call] } });
    else reply.forEach((w, i) => send({ delta: { role: 'assistant', content: i === 0 ? w : ` ${w}` } }));
    send({ finish_reason: finish, delta: { role: 'assistant', content: '' } }, { usage });
    res.end('data: [DONE]\n\n');
  }

  function v4Embed(res: ServerResponse, body: Record<string, unknown>): void {
    if (!EMBED_MODELS.has(String(body.model))) throw new ZhipuError(UNKNOWN_MODEL.status, UNKNOWN_MODEL.code, UNKNOWN_MODEL.message);
    const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) && body.input.every((x) => typeof x === 'string') ? (body.input as string[]) : undefined;
    if (!inputs || inputs.length === 0) throw bad('input 必须是字符串或字符串列表');
    const dims = typeof body.dimensions === 'number' ? body.dimensions : 8;
    const tokens = inputs.reduce((n, t) => n + words(t).length, 0);
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    const documented = fixtureBody('v4.embeddings.response');
    const item = (documented.data as Obj[])[0]!;
    res.end(JSON.stringify({ ...documented, model: body.model, data: inputs.map((t, index) => ({ ...item, index, embedding: fakeEmbedding(t, dims) })), usage: { ...(documented.usage as Obj), prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens } }));
  }

  function v3(res: ServerResponse, model: string, stream: boolean, body: Record<string, unknown>, f: FakeZhipuFault | undefined): void {
    for (const k of Object.keys(body)) if (!V3_FIELDS.has(k)) throw new ZhipuError(200, '1210', `参数错误: ${k}`);
    if (!V3_MODELS.has(model)) throw new ZhipuError(200, '1211', '模型不存在');
    if (!Array.isArray(body.prompt) || body.prompt.length === 0 || !body.prompt.every((m) => isRecord(m) && typeof m.content === 'string' && ['user', 'assistant', 'system'].includes(String(m.role)))) {
      throw new ZhipuError(200, '1214', 'prompt 参数非法');
    }
    const taskId = `83059872160344${String(++counter).padStart(5, '0')}`;
    const prompt = zhipuPromptTokens(body);
    const reply = replyWords(undefined);
    const usage = { prompt_tokens: prompt, completion_tokens: reply.length, total_tokens: prompt + reply.length };
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      const documented = fixtureBody('v3.chat.response');
      // The v3 wraps the content in literal quotes (JSON-encoded text), as documented.
      res.end(JSON.stringify({ ...documented, data: { ...(documented.data as Obj), request_id: taskId, task_id: taskId, choices: [{ role: 'assistant', content: JSON.stringify(reply.join(' ')) }], usage } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8', 'cache-control': 'no-cache' });
    if (f?.inStream) {
      res.write(`event:add\nid:${taskId}\ndata:${reply[0]}\n\n`);
      res.end(`event:error\nid:${taskId}\ndata:${f.message ?? '系统繁忙，请稍后重试'}\n\n`);
      return;
    }
    // `incremental:false` (the default) repeats the whole text so far in every `add` event.
    const inc = body.incremental === true;
    reply.forEach((w, i) => res.write(`event:add\nid:${taskId}\ndata:${inc ? (i === 0 ? w : ` ${w}`) : reply.slice(0, i + 1).join(' ')}\n\n`));
    const finish = fixtureEvents('v3.chat.stream').find((e) => e.event === 'finish')!;
    res.end(`event:finish\nid:${taskId}\ndata:\nmeta:${JSON.stringify({ ...(finish.meta as Obj), usage, task_id: taskId, request_id: taskId })}\n\n`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const { body } = await readJsonBody(req);
    const record: ZhipuRecordedRequest = { path, headers: req.headers, body };
    requests.push(record);
    const v3Path = /^\/api\/paas\/v3\/model-api\/([^/]+)\/(invoke|sse-invoke)$/.exec(path);
    try {
      verify(req, record);
      if (!isRecord(body)) throw bad('请求体须为 JSON 对象');
      const f = takeFault();
      if (f && !f.inStream) throw new ZhipuError(v3Path ? 200 : (f.status ?? ARREARS.status), f.code ?? ARREARS.code, f.message ?? ARREARS.message);
      if (req.method === 'POST' && path === '/api/paas/v4/chat/completions') return v4Chat(res, body);
      if (req.method === 'POST' && path === '/api/paas/v4/embeddings') return v4Embed(res, body);
      if (req.method === 'POST' && v3Path) return v3(res, decodeURIComponent(v3Path[1]!), v3Path[2] === 'sse-invoke', body, f);
      throw new ZhipuError(404, '404', `Not Found: ${req.method ?? 'GET'} ${path}`);
    } catch (err) {
      if (!(err instanceof ZhipuError)) throw err;
      record.rejected = { status: err.status, code: err.code, message: err.message };
      // v3 answers every failure as HTTP 200 with `success:false`; v4 with the status and `{"error":{…}}`.
      const v3Reply = v3Path !== null;
      res.writeHead(v3Reply ? 200 : err.status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(v3Reply ? { ...fixtureBody('v3.error'), code: Number(err.code), msg: err.message } : { ...fixtureBody('v4.error.unknown-model'), error: { code: err.code, message: err.message } }));
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: '500', message: `Fake upstream bug: ${String(err)}` } }));
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
