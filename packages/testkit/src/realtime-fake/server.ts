import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { FAKE_REALTIME_REPLY, RealtimeSession } from './session.js';

export interface RealtimeConnection {
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The subprotocol the fake selected ('' for none). */
  protocol: string;
  model: string;
  /** Client event types received, in order. */
  received: string[];
  /** Set once the socket closed: the code and who closed first. */
  closed?: { code: number; by: 'client' | 'server' };
}

export interface FakeRealtimeOptions {
  port?: number;
  host?: string;
  /** Accepted keys (Bearer, `api-key` on the Azure path, or the `openai-insecure-api-key.` subprotocol); default any. */
  apiKeys?: string[];
  /** Models served; default any `*realtime*` model. */
  models?: string[];
  /** The reply text of every response. */
  reply?: string;
}

export interface FakeRealtime {
  url: string;
  port: number;
  /** `url + '/v1'`. */
  baseURL: string;
  connections: RealtimeConnection[];
  /** From now on, each new session closes with 1011 mid-way through its `n`th response (null: never). */
  setCloseMidResponse(n: number | null): void;
  /**
   * From now on, each new session's `n`th response stops after `afterWords` reply words (their
   * deltas sent) and stays in progress, as a model still generating does, until `resumeAll()` or
   * the client's `response.cancel` (null: never).
   */
  setPauseMidResponse(n: number | null, afterWords?: number): void;
  /** Lets every paused response run to its `response.done`. */
  resumeAll(): void;
  /** Closes every open session from the server side. */
  closeAll(code: number, reason: string): void;
  close(): Promise<void>;
}

const AZURE_KEY_MESSAGE =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';

function maskKey(key: string): string {
  return key.length <= 8 ? key : `${key.slice(0, 3)}${'*'.repeat(Math.min(key.length - 7, 40))}${key.slice(-4)}`;
}

/** The key a client sent: Bearer, Azure's `api-key`, or the browser subprotocol `openai-insecure-api-key.<key>`. */
function keyOf(req: IncomingMessage, azure: boolean): string | undefined {
  if (azure) return typeof req.headers['api-key'] === 'string' ? req.headers['api-key'] : undefined;
  const bearer = /^Bearer\s+(.+)$/iu.exec(req.headers.authorization ?? '');
  if (bearer) return bearer[1]!.trim();
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return protocols.find((p) => p.startsWith('openai-insecure-api-key.'))?.slice('openai-insecure-api-key.'.length);
}

/**
 * A loopback Realtime API upstream: `GET /v1/realtime?model=` (OpenAI: `Authorization: Bearer`
 * and `OpenAI-Beta: realtime=v1`) and Azure's `/openai/realtime?api-version=&deployment=`
 * (`api-key`). OpenAI accepts the upgrade and refuses a bad key in-band: an `error` event
 * (`invalid_api_key`), then close code 3000; Azure refuses the handshake with 401.
 */
export async function startFakeRealtime(opts: FakeRealtimeOptions = {}): Promise<FakeRealtime> {
  const connections: RealtimeConnection[] = [];
  const live = new Set<WebSocket>();
  const sockets = new Set<Socket>();
  let closeMidResponse: number | undefined;
  let pauseMidResponse: { n: number; afterWords: number } | undefined;
  const sessions = new Set<RealtimeSession>();
  const wss = new WebSocketServer({
    noServer: true,
    // Browsers offer `realtime` plus the key and beta markers: select `realtime` (the one OpenAI answers).
    handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
  });
  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'This endpoint takes a WebSocket upgrade.', type: 'invalid_request_error', param: null, code: null } }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const azure = url.pathname === '/openai/realtime';
    const refuse = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Found'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    };
    if (!azure && url.pathname !== '/v1/realtime') return refuse(404, { error: { message: `Invalid URL (GET ${url.pathname})`, type: 'invalid_request_error', param: null, code: null } });
    const key = keyOf(req, azure);
    if (azure) {
      if (!url.searchParams.get('api-version') || !url.searchParams.get('deployment')) return refuse(404, { error: { code: '404', message: 'Resource not found' } });
      if (opts.apiKeys && (!key || !opts.apiKeys.includes(key))) return refuse(401, { error: { code: '401', message: AZURE_KEY_MESSAGE } });
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const model = (azure ? url.searchParams.get('deployment') : url.searchParams.get('model')) ?? '';
      const session = new RealtimeSession(ws, { model, reply: opts.reply ?? FAKE_REALTIME_REPLY, closeMidResponse, pauseMidResponse });
      sessions.add(session);
      const conn: RealtimeConnection = { path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, protocol: ws.protocol, model, received: session.received };
      connections.push(conn);
      live.add(ws);
      let serverClosing = false;
      const close = (code: number, reason: string) => {
        serverClosing = true;
        ws.close(code, reason);
      };
      ws.on('close', (code) => {
        live.delete(ws);
        sessions.delete(session);
        conn.closed = { code, by: serverClosing ? 'server' : 'client' };
      });
      if (!azure && opts.apiKeys && (!key || !opts.apiKeys.includes(key))) {
        const message = key
          ? `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`
          : 'Missing bearer or basic authentication in header';
        session.error('invalid_request_error', key ? 'invalid_api_key' : null, message);
        return close(3000, key ? 'invalid_request_error.invalid_api_key' : 'invalid_request_error');
      }
      if (!azure && !model) {
        session.error('invalid_request_error', 'missing_model', 'You must provide a model parameter');
        return close(3000, 'invalid_request_error.missing_model');
      }
      if (opts.models ? !opts.models.includes(model) : !model.includes('realtime')) {
        session.error('invalid_request_error', 'model_not_found', `The model '${model}' does not exist or you do not have access to it.`);
        return close(3000, 'invalid_request_error.model_not_found');
      }
      ws.on('message', (data, isBinary) => {
        if (isBinary) return session.error('invalid_request_error', 'invalid_json', 'Binary frames are not supported: send JSON events as text.');
        session.handle(data.toString('utf8'));
        if (ws.readyState !== ws.OPEN && !conn.closed) serverClosing = true;
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address}:${address.port}`;
  return {
    url,
    port: address.port,
    baseURL: `${url}/v1`,
    connections,
    setCloseMidResponse(n) {
      closeMidResponse = n ?? undefined;
    },
    setPauseMidResponse(n, afterWords = 1) {
      pauseMidResponse = n === null ? undefined : { n, afterWords };
    },
    resumeAll() {
      for (const s of sessions) s.resume();
    },
    closeAll(code, reason) {
      for (const ws of live) ws.close(code, reason);
    },
    close: async () => {
      for (const ws of live) ws.terminate();
      await new Promise<void>((resolve) => {
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    },
  };
}
