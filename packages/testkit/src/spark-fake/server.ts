import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { providerFixture } from '../provider-fixtures.js';
import { words } from '../rerank-scores.js';

export const FAKE_SPARK_WORDS = ['Hello', 'from', 'the', 'fake', 'Spark', 'model', 'at', 'your', 'service', 'today'];
/** `APPID|APISecret|APIKey` the fake accepts unless told otherwise. */
export const FAKE_SPARK_KEY = 'fakeapp1|ZmFrZVNwYXJrQXBpU2VjcmV0MDAwMDAwMDE|fakeSparkApiKey0000000000000001';

/** Path → the `domain` that version answers as (iFlytek's Web API table). */
const ROUTES: Record<string, string> = {
  '/v1.1/chat': 'lite',
  '/v2.1/chat': 'generalv2',
  '/v3.1/chat': 'generalv3',
  '/v3.5/chat': 'generalv3.5',
  '/v4.0/chat': '4.0Ultra',
  '/chat/pro-128k': 'pro-128k',
  '/chat/max-32k': 'max-32k',
};
const SYSTEM_DOMAINS = new Set(['generalv3.5', '4.0Ultra', 'max-32k', 'pro-128k']);
/** Date skew iFlytek's gateway tolerates (its docs: 300 s). */
const MAX_SKEW_MS = 300_000;

export interface SparkRecordedRequest {
  path: string;
  /** The signed query: authorization, date, host. */
  query: Record<string, string>;
  /** The request frame (absent when the upgrade was refused). */
  frame?: unknown;
  /** The upgrade refused (HTTP status and message) or the frame refused (error code). */
  rejected?: { status?: number; code?: number; message: string };
  /** Frames sent back. */
  framesSent: number;
  /** The client closed the socket before the last frame. */
  clientClosedEarly: boolean;
}

export type FakeSparkFault =
  /** Answers the next frame(s) with this error code (status 2, no payload) and closes, as iFlytek does. */
  | { code: number; message?: string; afterFrames?: number; times?: number }
  /** Sends this many frames, then drops the connection without the last one. */
  | { closeAfter: number; times?: number };

export interface FakeSpark {
  /** `http://host:port`: the base a channel is given (dialled as ws://). */
  url: string;
  port: number;
  requests: SparkRecordedRequest[];
  setFault(f: FakeSparkFault | null): void;
  /** Delay between two frames, ms. */
  setFrameDelay(ms: number): void;
  close(): Promise<void>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
type Obj = Record<string, unknown>;

/**
 * iFlytek's documented frames (server/src/relay/adapters/spark/fixtures) are the fake's templates:
 * answer frames (by status 0/1/2), error frames and the refused handshake's body, with this
 * request's values put in.
 */
const documentedFrames = (): Obj[] => providerFixture('spark', 'chat.stream').events as Obj[];
/** Error frames documented per code: the fake answers a fault of that code with iFlytek's words. */
const ERROR_FRAMES = ['error.content-blocked', 'error.too-long', 'error.unauthorized', 'error.daily-limit', 'error.bad-parameter'].map((n) => providerFixture('spark', n).body as Obj);
function errorFrame(code: number, message: string | undefined, sid: string): Obj {
  const documented = ERROR_FRAMES.find((f) => isRecord(f.header) && f.header.code === code);
  const header = isRecord(documented?.header) ? documented.header : (ERROR_FRAMES[0]!.header as Obj);
  return { header: { ...header, code, message: message ?? (documented ? header.message : `error ${code}`), sid, status: 2 } };
}

/** Prompt tokens the fake bills: one per word of every message of the frame. */
export function sparkPromptTokens(frame: unknown): number {
  const f = isRecord(frame) ? frame : {};
  const text = isRecord(f.payload) && isRecord(f.payload.message) && Array.isArray(f.payload.message.text) ? f.payload.message.text : [];
  return text.reduce<number>((n, m) => n + (isRecord(m) && typeof m.content === 'string' ? words(m.content).length : 0), 0);
}

class UpgradeRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

class FrameError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** `api_key="…", algorithm="…", headers="…", signature="…"` (the reference's `hmac username="…"` form accepted too). */
function parseAuthorization(raw: string): Record<string, string> | undefined {
  const text = Buffer.from(raw, 'base64').toString('utf8').replace(/^hmac\s+/i, '');
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out.signature ? out : undefined;
}

/**
 * A fake iFlytek Spark Web API on loopback (reference §3; https://www.xfyun.cn/doc/spark/Web.html):
 * a WebSocket per request at `/v{x}/chat`, the upgrade refused 401/403 with the gateway's
 * `{"message":"…"}` unless the `authorization`, `date` and `host` query parameters carry a valid
 * HMAC-SHA256 signature over `host: …\ndate: …\nGET {path} HTTP/1.1` made within 300 s. The request
 * frame is checked (app id, the domain of the path, text turns); the answer is streamed as frames
 * with status 0, 1 … 2, the last carrying `payload.usage.text`; errors are a status-2 frame with
 * `header.code` and a close.
 */
export async function startFakeSpark(opts: { port?: number; host?: string; keys?: string[]; chunkCount?: number } = {}): Promise<FakeSpark> {
  const requests: SparkRecordedRequest[] = [];
  const creds = new Map((opts.keys ?? [FAKE_SPARK_KEY]).map((k) => {
    const [appId = '', apiSecret = '', apiKey = ''] = k.split('|');
    return [apiKey, { appId, apiSecret }];
  }));
  const chunkCount = Math.max(2, Math.min(opts.chunkCount ?? 5, FAKE_SPARK_WORDS.length));
  let fault: FakeSparkFault | null = null;
  let faultUses = 0;
  let frameDelay = 0;
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets = new Set<Socket>();

  function verify(req: IncomingMessage, url: URL): { appId: string } {
    const q = Object.fromEntries(url.searchParams);
    if (!q.authorization) throw new UpgradeRefusal(401, 'Unauthorized');
    const auth = parseAuthorization(q.authorization);
    const apiKey = auth?.api_key ?? auth?.username;
    const cred = apiKey === undefined ? undefined : creds.get(apiKey);
    if (!auth || !cred || auth.algorithm !== 'hmac-sha256' || auth.headers !== 'host date request-line') throw new UpgradeRefusal(401, 'HMAC signature cannot be verified');
    const date = Date.parse(q.date ?? '');
    if (!Number.isFinite(date) || Math.abs(Date.now() - date) > MAX_SKEW_MS) {
      throw new UpgradeRefusal(403, 'HMAC signature cannot be verified, a valid date or x-date header is required for HMAC Authentication');
    }
    if (q.host !== req.headers.host) throw new UpgradeRefusal(401, 'HMAC signature does not match');
    const want = createHmac('sha256', cred.apiSecret).update(`host: ${q.host}\ndate: ${q.date}\nGET ${url.pathname} HTTP/1.1`).digest();
    const got = Buffer.from(auth.signature!, 'base64');
    if (got.length !== want.length || !timingSafeEqual(got, want)) throw new UpgradeRefusal(401, 'HMAC signature does not match');
    return cred;
  }

  function validate(frame: unknown, appId: string, domain: string): Record<string, unknown> {
    if (!isRecord(frame) || !isRecord(frame.header) || !isRecord(frame.parameter) || !isRecord(frame.payload)) throw new FrameError(10003, 'InvalidParams: the frame needs header, parameter and payload');
    if (frame.header.app_id !== appId) throw new FrameError(10313, 'InvalidParams: appid cannot match apikey');
    const chat = isRecord(frame.parameter.chat) ? frame.parameter.chat : undefined;
    if (!chat || chat.domain !== domain) throw new FrameError(10404, `InvalidParams: parameter.chat.domain must be ${domain} on this path`);
    if (chat.max_tokens !== undefined && !(Number.isInteger(chat.max_tokens) && Number(chat.max_tokens) >= 1 && Number(chat.max_tokens) <= 8192)) throw new FrameError(10163, 'InvalidParams: parameter.chat.max_tokens must be 1..8192');
    if (chat.temperature !== undefined && !(typeof chat.temperature === 'number' && chat.temperature > 0 && chat.temperature <= 1)) throw new FrameError(10163, 'InvalidParams: parameter.chat.temperature must be in (0, 1]');
    const text = isRecord(frame.payload.message) ? frame.payload.message.text : undefined;
    if (!Array.isArray(text) || text.length === 0) throw new FrameError(10163, 'InvalidParams: payload.message.text must not be empty');
    for (const m of text) {
      if (!isRecord(m) || typeof m.content !== 'string' || !['user', 'assistant', 'system'].includes(String(m.role))) throw new FrameError(10163, 'InvalidParams: each text needs a role (system, user, assistant) and content');
      if (m.role === 'system' && !SYSTEM_DOMAINS.has(domain)) throw new FrameError(10163, `InvalidParams: the system role is not supported by ${domain}`);
    }
    if (!isRecord(text.at(-1)) || (text.at(-1) as Record<string, unknown>).role !== 'user') throw new FrameError(10163, 'InvalidParams: the last text must be the user\'s');
    return frame;
  }

  const takeFault = (): FakeSparkFault | null => {
    if (!fault || (fault.times !== undefined && faultUses >= fault.times)) return null;
    faultUses += 1;
    return fault;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function answer(ws: WebSocket, record: SparkRecordedRequest, frame: Record<string, unknown>, end: () => void): Promise<void> {
    const sid = `cht000${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const f = takeFault();
    const prompt = sparkPromptTokens(frame);
    const text = isRecord(frame.payload) && isRecord(frame.payload.message) && Array.isArray(frame.payload.message.text) ? frame.payload.message.text : [];
    const last = text.at(-1) as Record<string, unknown>;
    const question = words(String(last.content)).length;
    const templates = documentedFrames();
    const send = (status: number, seq: number, content: string, usage?: Record<string, number>) => {
      const t = templates.find((x) => isRecord(x.header) && x.header.status === status)!;
      const p = t.payload as Obj;
      const choices = p.choices as Obj;
      const item = (choices.text as Obj[])[0]!;
      const payload: Obj = { choices: { ...choices, status, seq, text: [{ ...item, content }] } };
      if (usage) payload.usage = { ...(p.usage as Obj), text: usage };
      ws.send(JSON.stringify({ header: { ...(t.header as Obj), sid, status }, payload }));
      record.framesSent += 1;
    };
    for (let i = 0; i < chunkCount; i++) {
      if (ws.readyState !== ws.OPEN) return;
      if (f && 'code' in f && (f.afterFrames ?? 0) === i) {
        const frame = errorFrame(f.code, f.message, sid);
        ws.send(JSON.stringify(frame));
        record.rejected = { code: f.code, message: String((frame.header as Obj).message) };
        end();
        ws.close();
        return;
      }
      if (f && 'closeAfter' in f && f.closeAfter === i) {
        end();
        ws.terminate();
        return;
      }
      const word = i === 0 ? FAKE_SPARK_WORDS[i]! : ` ${FAKE_SPARK_WORDS[i]}`;
      const final = i === chunkCount - 1;
      send(i === 0 ? 0 : final ? 2 : 1, i, word, final ? { question_tokens: question, prompt_tokens: prompt, completion_tokens: chunkCount, total_tokens: prompt + chunkCount } : undefined);
      if (!final && frameDelay) await sleep(frameDelay);
    }
    end();
    ws.close();
  }

  const server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ message: 'no Route matched with those values' }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const record: SparkRecordedRequest = { path: url.pathname, query: Object.fromEntries(url.searchParams), framesSent: 0, clientClosedEarly: false };
    requests.push(record);
    const refuse = (status: number, message: string) => {
      record.rejected = { status, message };
      const body = JSON.stringify({ ...(providerFixture('spark', 'error.handshake').body as Obj), message });
      socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : status === 403 ? 'Forbidden' : 'Unauthorized'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    const domain = ROUTES[url.pathname];
    if (!domain) return refuse(404, 'no Route matched with those values');
    let cred: { appId: string };
    try {
      cred = verify(req, url);
    } catch (err) {
      if (err instanceof UpgradeRefusal) return refuse(err.status, err.message);
      throw err;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      let done = false;
      ws.once('message', (data: Buffer) => {
        let frame: unknown;
        try {
          frame = JSON.parse(data.toString('utf8'));
        } catch {
          frame = undefined;
        }
        record.frame = frame;
        try {
          const ok = validate(frame, cred.appId, domain);
          void answer(ws, record, ok, () => (done = true));
        } catch (err) {
          if (!(err instanceof FrameError)) throw err;
          done = true;
          record.rejected = { code: err.code, message: err.message };
          ws.send(JSON.stringify(errorFrame(err.code, err.message, `cht000${randomUUID().slice(0, 8)}`)));
          ws.close();
        }
      });
      ws.on('close', () => {
        if (!done) record.clientClosedEarly = true;
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    port: address.port,
    requests,
    setFault: (f) => {
      fault = f;
      faultUses = 0;
    },
    setFrameDelay: (ms) => {
      frameDelay = ms;
    },
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    },
  };
}
