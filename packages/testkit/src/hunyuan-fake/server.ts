import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, serveFake, type ListeningFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { words } from '../rerank-scores.js';

export const FAKE_HUNYUAN_WORDS = ['Hello', 'from', 'the', 'fake', 'Hunyuan', 'model', 'at', 'your', 'service', 'today'];
/** `AppId|SecretId|SecretKey` the fake accepts unless told otherwise. */
export const FAKE_TENCENT_KEY = '1300000000|AKIDfakeHunyuanSecretId0001|fakeHunyuanSecretKey0001';
type Obj = Record<string, unknown>;
/**
 * Tencent's documented bodies (server/src/relay/adapters/tencent/fixtures) are the fake's templates:
 * the answer, the stream frames and the error envelope are fixtures with this request's values put in.
 */
const fixtureBody = (name: string): Obj => providerFixture('tencent', name).body as Obj;
const documentedResponse = (): Obj => fixtureBody('chat.response').Response as Obj;
/** The documented stream: its first frame is a middle one, its last the finishing one. */
const documentedFrames = (): { middle: Obj; last: Obj } => {
  const events = providerFixture('tencent', 'chat.stream').events as Obj[];
  return { middle: events[0]!, last: events.at(-1)! };
};
/** The documented signature refusal, the words the fake answers a bad signature with. */
const SIGNATURE_FAILURE = ((fixtureBody('error.signature').Response as Obj).Error as { Message: string }).Message;
function errorBody(code: string, message: string, requestId: string): Obj {
  const documented = fixtureBody('error.invalid-parameter').Response as Obj;
  return { Response: { ...documented, Error: { ...(documented.Error as Obj), Code: code, Message: message }, RequestId: requestId } };
}

export interface HunyuanRecordedRequest {
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The raw body bytes the signature covered. */
  raw: string;
  rejected?: { code: string; message: string };
}

export interface FakeHunyuanFault {
  code: string;
  message?: string;
  times?: number;
}

export interface FakeHunyuan extends ListeningFake {
  requests: HunyuanRecordedRequest[];
  setFault(f: FakeHunyuanFault | null): void;
}

class TencentError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest();
const MODELS = new Set(['hunyuan-lite', 'hunyuan-standard', 'hunyuan-standard-256K', 'hunyuan-pro', 'hunyuan-turbo']);

/** Prompt tokens the fake bills: one per word of every message. */
export function hunyuanPromptTokens(body: Record<string, unknown>): number {
  const msgs = Array.isArray(body.Messages) ? body.Messages : [];
  return msgs.reduce<number>((n, m) => n + (isRecord(m) && typeof m.Content === 'string' ? words(m.Content).length : 0), 0);
}

/**
 * A fake Tencent Hunyuan API on loopback (reference §5): `POST /` with `X-TC-Action:
 * ChatCompletions`, `X-TC-Version: 2023-09-01`. The TC3-HMAC-SHA256 `Authorization` is recomputed
 * from the received Host, the signed headers and the body bytes, the timestamp must be within five
 * minutes; replies `{Response:{Choices, Usage, Id, Note, RequestId}}`, streams `data: {Choices:[{Delta}]}`
 * frames without `[DONE]`, every error HTTP 200 `{Response:{Error:{Code, Message}, RequestId}}`.
 */
export async function startFakeHunyuan(opts: { port?: number; host?: string; apiKeys?: string[] } = {}): Promise<FakeHunyuan> {
  const requests: HunyuanRecordedRequest[] = [];
  const secrets = new Map((opts.apiKeys ?? [FAKE_TENCENT_KEY]).map((k) => [k.split('|')[1]!, k.split('|')[2]!]));
  let fault: FakeHunyuanFault | null = null;
  let faultUses = 0;

  function verify(req: IncomingMessage, raw: string): void {
    const auth = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/hunyuan\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(String(req.headers.authorization ?? ''));
    if (!auth) throw new TencentError('AuthFailure.SignatureFailure', SIGNATURE_FAILURE);
    const [, secretId, date, signedHeaders, signature] = auth;
    const secret = secrets.get(secretId!);
    if (secret === undefined) throw new TencentError('AuthFailure.SecretIdNotFound', 'The SecretId is not found, please ensure that your SecretId is correct.');
    const ts = Number(req.headers['x-tc-timestamp']);
    if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > 300) throw new TencentError('AuthFailure.SignatureExpire', 'Signature expired. Timestamp and server time differ by more than 300 seconds.');
    if (new Date(ts * 1000).toISOString().slice(0, 10) !== date) throw new TencentError('AuthFailure.SignatureFailure', 'The credential date does not match the timestamp.');
    const names = signedHeaders!.split(';');
    if (!names.includes('content-type') || !names.includes('host')) throw new TencentError('AuthFailure.SignatureFailure', 'content-type and host must be signed.');
    const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().toLowerCase()}\n`).join('');
    const canonical = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256(raw)].join('\n');
    const toSign = `TC3-HMAC-SHA256\n${ts}\n${date}/hunyuan/tc3_request\n${sha256(canonical)}`;
    const key = hmac(hmac(hmac(`TC3${secret}`, date!), 'hunyuan'), 'tc3_request');
    const want = createHmac('sha256', key).update(toSign).digest();
    if (!timingSafeEqual(want, Buffer.from(signature!, 'hex'))) throw new TencentError('AuthFailure.SignatureFailure', SIGNATURE_FAILURE);
  }

  function validate(body: Record<string, unknown>): void {
    if (!MODELS.has(String(body.Model))) throw new TencentError('InvalidParameterValue.Model', '模型不存在');
    const msgs = body.Messages;
    if (!Array.isArray(msgs) || msgs.length === 0) throw new TencentError('InvalidParameter', 'Messages 不能为空');
    const turns = isRecord(msgs[0]) && msgs[0].Role === 'system' ? msgs.slice(1) : msgs;
    turns.forEach((m, i) => {
      if (!isRecord(m) || m.Role !== (i % 2 === 0 ? 'user' : 'assistant') || typeof m.Content !== 'string') throw new TencentError('InvalidParameter', 'Messages 中 user 与 assistant 需交替出现，且以 user 结尾');
    });
    if (turns.length % 2 === 0) throw new TencentError('InvalidParameter', 'Messages 中最后一条须为 user');
    if (body.Temperature !== undefined && !(typeof body.Temperature === 'number' && body.Temperature >= 0 && body.Temperature <= 2)) throw new TencentError('InvalidParameter', 'Temperature must be 2 or less');
    if (body.TopP !== undefined && !(typeof body.TopP === 'number' && body.TopP >= 0 && body.TopP <= 1)) throw new TencentError('InvalidParameter', 'TopP must be between 0 and 1');
  }

  function chat(res: ServerResponse, body: Record<string, unknown>, requestId: string): void {
    validate(body);
    const id = randomUUID().replace(/-/g, '');
    const created = Math.floor(Date.now() / 1000);
    const prompt = hunyuanPromptTokens(body);
    const reply = FAKE_HUNYUAN_WORDS.slice(0, 5);
    const usage = (n: number) => ({ PromptTokens: prompt, CompletionTokens: n, TotalTokens: prompt + n });
    if (body.Stream !== true) {
      const documented = documentedResponse();
      const choice = (documented.Choices as Obj[])[0]!;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Response: { ...documented, RequestId: requestId, Choices: [{ ...choice, FinishReason: 'stop', Message: { ...(choice.Message as Obj), Content: reply.join(' ') } }], Created: created, Id: id, Usage: usage(reply.length) } }));
      return;
    }
    const { middle, last } = documentedFrames();
    const frame = (template: Obj, content: string, finish: string, n: number) => {
      const choice = (template.Choices as Obj[])[0]!;
      return `data: ${JSON.stringify({ ...template, Choices: [{ ...choice, FinishReason: finish, Delta: { ...(choice.Delta as Obj), Content: content } }], Created: created, Id: id, Usage: usage(n) })}\n\n`;
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    reply.forEach((w, i) => res.write(frame(middle, i === 0 ? w : ` ${w}`, '', i + 1)));
    res.end(frame(last, '', 'stop', reply.length));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? (JSON.parse(raw) as unknown) : undefined;
    } catch {
      body = undefined;
    }
    const record: HunyuanRecordedRequest = { headers: req.headers, body, raw };
    requests.push(record);
    const requestId = randomUUID();
    try {
      if (req.method !== 'POST' || (req.url ?? '/') !== '/') throw new TencentError('UnsupportedOperation', `unsupported ${req.method ?? 'GET'} ${req.url ?? ''}`);
      verify(req, raw);
      if (req.headers['x-tc-action'] !== 'ChatCompletions') throw new TencentError('InvalidAction', `The action ${String(req.headers['x-tc-action'])} is not supported.`);
      if (req.headers['x-tc-version'] !== '2023-09-01') throw new TencentError('NoSuchVersion', 'The requested version does not exist.');
      if (!isRecord(body)) throw new TencentError('InvalidParameter', 'The request body is not a JSON object.');
      if (fault && (fault.times === undefined || faultUses < fault.times)) {
        faultUses += 1;
        throw new TencentError(fault.code, fault.message ?? fault.code);
      }
      chat(res, body, requestId);
    } catch (err) {
      if (!(err instanceof TencentError)) throw err;
      record.rejected = { code: err.code, message: err.message };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody(err.code, err.message, requestId)));
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(errorBody('InternalError', `Fake upstream bug: ${String(err)}`, randomUUID())));
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
