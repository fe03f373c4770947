import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from '../http-fake.js';

export interface FakeWeChatServerOptions {
  /** The server token the gateway sends as `Authorization`; default `fake-wechat-token`. */
  token?: string;
  port?: number;
  host?: string;
}

export interface FakeWeChatServer {
  url: string;
  token: string;
  /**
   * A verification code as the official account would show it to the user who sent the keyword;
   * the WeChat server answers it with that user's openid (once, like the real server).
   */
  issueCode(openid: string): string;
  /** Wait this long before every answer (a slow server). */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The "WeChat Server" companion the reference signs in through: `GET /api/wechat/user?code=` with
 * the server token as `Authorization` answers `{success, message, data: <openid>}`.
 */
export async function startFakeWeChatServer(opts: FakeWeChatServerOptions = {}): Promise<FakeWeChatServer> {
  const token = opts.token ?? 'fake-wechat-token';
  const codes = new Map<string, string>();
  let delayMs = 0;
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> => {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (signal.aborted) return;
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method !== 'GET' || url.pathname !== '/api/wechat/user') return json(res, 404, { success: false, message: 'not found' });
    if (req.headers.authorization !== token) return json(res, 200, { success: false, message: '无权进行此操作，未登录或 token 无效' });
    const code = url.searchParams.get('code') ?? '';
    const openid = codes.get(code);
    if (!openid) return json(res, 200, { success: false, message: '验证码错误或已过期' });
    codes.delete(code);
    json(res, 200, { success: true, message: '', data: openid });
  };

  const server = await serveFake(opts, handle, (res, err) => json(res, 500, { success: false, message: String(err) }));
  return {
    url: server.url,
    token,
    issueCode(openid) {
      counter += 1;
      const code = String(100000 + ((counter * 7919) % 900000));
      codes.set(code, openid);
      return code;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    close: server.close,
  };
}
