import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';

export interface DifyRecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; code: string; message: string };
}

export interface FakeDify extends ListeningFake {
  requests: DifyRecordedRequest[];
}

export interface FakeDifyOptions {
  port?: number;
  host?: string;
  /** Accepted app keys (`Authorization: Bearer app-…`); default any `app-…` key. */
  appKeys?: string[];
  /** The answer, streamed word by word; default "Hello from the fake Dify". */
  answer?: string;
  /** An agent app: `agent_message` and `agent_thought` events instead of `message`. */
  agent?: boolean;
  /** A streamed reply fails after its first answer chunk with Dify's `error` event. */
  failMidStream?: boolean;
}

export const FAKE_DIFY_ANSWER = 'Hello from the fake Dify';

class DifyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
/**
 * Dify's documented bodies (server/src/relay/adapters/dify/fixtures) are the fake's templates: the
 * blocking answer, every stream event and the error body, with this call's ids, text and usage put in.
 */
const documented = (name: string): Obj => providerFixture('dify', name).body as Obj;
/** The first event named `event` of a documented stream. */
const documentedEvent = (name: string, event: string): Obj => (providerFixture('dify', name).events as Obj[]).find((e) => e.event === event)!;
/** A documented refusal's status, code and words. */
const documentedError = (name: string): DifyError => {
  const b = documented(name);
  return new DifyError(Number(b.status), String(b.code), String(b.message));
};
const UNAUTHORIZED = documentedError('error.unauthorized');

/** Dify's token count of a query or an answer in this fake: one per whitespace-separated word. */
export function difyTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** `metadata.usage` as Dify reports it: counts, and prices as strings. */
export function difyUsageOf(query: string, answer: string): Record<string, unknown> {
  const p = difyTokens(query);
  const c = difyTokens(answer);
  const price = (n: number, unit: number) => (n * unit).toFixed(7);
  // The documented usage keeps its unit prices, price unit and currency; counts, prices and latency are this call's.
  const documentedUsage = (documented('chat.response').metadata as Obj).usage as Obj;
  return {
    ...documentedUsage,
    prompt_tokens: p,
    prompt_price: price(p, 0.000001),
    completion_tokens: c,
    completion_price: price(c, 0.000002),
    total_tokens: p + c,
    total_price: price(p, 0.000001 + c * 0.000002),
    latency: 0.42,
  };
}

/**
 * A fake Dify app API on loopback (providers-international §8.4): `POST /v1/chat-messages` with the
 * app key as Bearer, `inputs`, `query`, `user` and `response_mode` required as Dify requires them;
 * `blocking` answers `{event:"message",…,answer,metadata:{usage}}`, `streaming` answers SSE frames
 * with the event name inside (`message`/`agent_message`, `agent_thought`, `ping`, `message_end`
 * with usage, `error`). Errors are Dify's `{code,message,status}`.
 */
export async function startFakeDify(opts: FakeDifyOptions = {}): Promise<FakeDify> {
  const requests: DifyRecordedRequest[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const { body } = await readJsonBody(req);
    const record: DifyRecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(record);
    try {
      const auth = /^Bearer (app-.+)$/.exec(String(req.headers.authorization ?? ''));
      if (!auth || (opts.appKeys && !opts.appKeys.includes(auth[1]!))) throw UNAUTHORIZED;
      if (path !== '/v1/chat-messages' || req.method !== 'POST') throw new DifyError(404, 'not_found', 'The requested URL was not found on the server.');
      if (typeof body !== 'object' || body === null) throw new DifyError(400, 'invalid_param', 'Invalid JSON body');
      const b = body as Record<string, unknown>;
      if (typeof b.query !== 'string' || !b.query) throw new DifyError(400, 'invalid_param', 'query is required');
      if (typeof b.user !== 'string' || !b.user) throw new DifyError(400, 'invalid_param', 'user is required');
      if (typeof b.inputs !== 'object' || b.inputs === null) throw new DifyError(400, 'invalid_param', 'inputs is required in input form');
      if (b.response_mode !== 'blocking' && b.response_mode !== 'streaming') throw new DifyError(400, 'invalid_param', 'response_mode must be blocking or streaming');
      if (b.conversation_id !== undefined && b.conversation_id !== '') throw new DifyError(404, 'not_found', 'Conversation Not Exists.');
      if (opts.agent && b.response_mode === 'blocking') throw new DifyError(400, documentedError('error.app-unavailable').code, 'Agent Chat App does not support blocking mode');
      const answer = opts.answer ?? FAKE_DIFY_ANSWER;
      const ids = { task_id: randomUUID(), message_id: randomUUID(), conversation_id: randomUUID() };
      const created_at = Math.floor(Date.now() / 1000);
      const usage = difyUsageOf(b.query, answer);
      if (b.response_mode === 'blocking') {
        res.writeHead(200, { 'content-type': 'application/json' });
        // No knowledge base behind the fake app: no retriever resources.
        res.end(JSON.stringify({ ...documented('chat.response'), ...ids, id: ids.message_id, answer, metadata: { usage, retriever_resources: [] }, created_at }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      // Each frame is the documented event of its name with this call's values; ids only where the template has them.
      const send = (stream: string, event: string, values: Obj = {}) => {
        const template = documentedEvent(stream, event);
        const own = Object.fromEntries(Object.entries({ ...ids, id: ids.message_id, created_at }).filter(([k]) => k in template));
        res.write(`data: ${JSON.stringify({ ...template, ...own, ...values })}\n\n`);
      };
      // The keep-alive ping is a named SSE event with no data.
      res.write('event: ping\n\n');
      if (opts.agent) send('chat.stream.agent', 'agent_thought', { id: randomUUID(), thought: '', observation: '', tool: '', tool_input: '', message_files: [] });
      const words = answer.split(/(?<= )/);
      for (const [i, w] of words.entries()) {
        if (signal.aborted) return;
        if (opts.agent) send('chat.stream.agent', 'agent_message', { answer: w });
        else send('chat.stream', 'message', { answer: w });
        if (opts.failMidStream && i === 0) {
          send('chat.stream.error', 'error');
          res.end();
          return;
        }
        await sleep(1);
      }
      send(opts.agent ? 'chat.stream.agent' : 'chat.stream', 'message_end', { metadata: { usage, retriever_resources: [] } });
      res.end();
    } catch (err) {
      if (!(err instanceof DifyError)) throw err;
      record.rejected = { status: err.status, code: err.code, message: err.message };
      res.writeHead(err.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...documented('error.invalid-param'), status: err.status, code: err.code, message: err.message }));
    }
  }

  const listening = await serveFake(opts, handle, (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'internal_server_error', message: `fake upstream bug: ${String(err)}`, status: 500 }));
  });
  return { ...listening, requests };
}
