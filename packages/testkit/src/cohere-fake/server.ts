import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { providerFixture } from '../provider-fixtures.js';
import { fakeEmbedding, rankDocuments, words } from '../rerank-scores.js';

export const FAKE_COHERE_WORDS = ['Hello', 'from', 'the', 'fake', 'Cohere', 'model', 'at', 'your', 'service', 'today'];
export const FAKE_COHERE_TOOL_ARGS = { location: 'San Francisco, CA', unit: 'celsius' };
/** Tokens Cohere adds for its own system preamble: counted in `tokens`, not billed. */
const PREAMBLE_TOKENS = 7;

export interface CohereRecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; message: string };
}

export interface FakeCohereFault {
  /** Answer with this status and Cohere's `{"message"}` body. */
  status?: number;
  message?: string;
  times?: number;
}

export interface FakeCohere extends ListeningFake {
  requests: CohereRecordedRequest[];
  setFault(f: FakeCohereFault | null): void;
}

class CohereError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
type Obj = Record<string, unknown>;

/**
 * Cohere's documented bodies (server/src/relay/adapters/cohere/fixtures) are the fake's templates:
 * answers, stream events and error bodies are those fixtures with this request's text, ids and
 * usage put in.
 */
const documented = (name: string): Obj => providerFixture('cohere', name).body as Obj;
/** The first event of a documented stream with this `type`. */
const documentedEvent = (name: string, type: string): Obj => (providerFixture('cohere', name).events as Obj[]).find((e) => e.type === type)!;
/** A documented error: its status and body. */
const documentedError = (name: string): { status: number; body: Obj } => {
  const f = providerFixture('cohere', name);
  return { status: f.status!, body: f.body as Obj };
};
const RATE_LIMIT = documentedError('error.rate-limit');
const INVALID_TOKEN = documentedError('error.invalid-token');
/** The error bodies by status: a 400 carries an `id` as documented, the others the message alone. */
const ERROR_TEMPLATES = new Map([documentedError('error.bad-request'), INVALID_TOKEN, RATE_LIMIT, documentedError('error.trial-token')].map((e) => [e.status, e.body]));

const bad = (message: string) => new CohereError(400, `invalid request: ${message}`);
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const CHAT_FIELDS = new Set(['model', 'messages', 'stream', 'max_tokens', 'temperature', 'p', 'k', 'seed', 'stop_sequences', 'frequency_penalty', 'presence_penalty', 'tools', 'tool_choice', 'response_format', 'safety_mode', 'documents', 'citation_options', 'strict_tools', 'logprobs', 'thinking']);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : '')).join(' ');
}

/** Billed input tokens of a v2 chat request: one per word of every message, tool plan and call. */
export function cohereChatInputTokens(body: Record<string, unknown>): number {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  return msgs.reduce<number>((n, m) => {
    if (!isRecord(m)) return n;
    let t = words(textOf(m.content)).length + (typeof m.tool_plan === 'string' ? words(m.tool_plan).length : 0);
    if (Array.isArray(m.tool_calls)) t += m.tool_calls.length * 3;
    return n + t;
  }, 0);
}

function validateChat(body: Record<string, unknown>): void {
  for (const k of Object.keys(body)) if (!CHAT_FIELDS.has(k)) throw bad(`unknown field: parameter ${k} is not a valid field`);
  if (typeof body.model !== 'string' || !body.model) throw bad('model must be provided');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw bad('messages must be a non-empty list');
  const ids = new Set<string>();
  body.messages.forEach((m, i) => {
    if (!isRecord(m) || !ROLES.has(String(m.role))) throw bad(`messages[${i}].role must be one of system, user, assistant, tool`);
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) for (const c of m.tool_calls) if (isRecord(c) && typeof c.id === 'string') ids.add(c.id);
    if (m.role === 'tool' && (typeof m.tool_call_id !== 'string' || !ids.has(m.tool_call_id))) throw bad(`messages[${i}].tool_call_id must match a tool call of a previous assistant message`);
    if (m.role !== 'assistant' && m.role !== 'tool' && m.content === undefined) throw bad(`messages[${i}].content is required`);
  });
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw bad('stream must be a boolean');
  if (body.max_tokens !== undefined && !(Number.isInteger(body.max_tokens) && (body.max_tokens as number) > 0)) throw bad('max_tokens must be a positive integer');
  if (body.tool_choice !== undefined && body.tool_choice !== 'REQUIRED' && body.tool_choice !== 'NONE') throw bad('tool_choice must be REQUIRED or NONE');
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw bad('tools must be a list');
    body.tools.forEach((t, i) => {
      if (!isRecord(t) || t.type !== 'function' || !isRecord(t.function) || typeof t.function.name !== 'string') throw bad(`tools[${i}] must be {"type":"function","function":{"name",…}}`);
    });
  }
}

/** The tool to call: when tools are offered (and not refused) and the last message is the user's. */
function chosenTool(body: Record<string, unknown>): string | undefined {
  const msgs = body.messages as Array<Record<string, unknown>>;
  if (!Array.isArray(body.tools) || body.tools.length === 0 || body.tool_choice === 'NONE' || msgs.at(-1)?.role !== 'user') return undefined;
  return String(((body.tools[0] as Record<string, unknown>).function as Record<string, unknown>).name);
}

/** A refusal in the documented body of its status (a fresh `id` where the template has one). */
function cohereErrorBody(err: CohereError): Obj {
  const template = ERROR_TEMPLATES.get(err.status) ?? INVALID_TOKEN.body;
  return { ...template, ...('id' in template ? { id: randomUUID() } : {}), message: err.message };
}

/**
 * A fake Cohere API on loopback (providers-international §6): Chat v2 (`POST /v2/chat`, JSON and
 * SSE events typed by `type`), Embed v2 (`POST /v2/embed`) and Rerank v1 (`POST /v1/rerank`).
 * Bearer keys are checked; bodies validated as documented; usage in `billed_units` (one token per
 * word) and `tokens` (plus the preamble); errors are Cohere's `{"message"}`.
 */
export async function startFakeCohere(opts: { port?: number; host?: string; apiKeys?: string[]; chunkCount?: number } = {}): Promise<FakeCohere> {
  const requests: CohereRecordedRequest[] = [];
  const chunkCount = opts.chunkCount ?? 5;
  let fault: FakeCohereFault | null = null;
  let faultUses = 0;
  let counter = 0;

  function chat(res: ServerResponse, body: Record<string, unknown>): void {
    validateChat(body);
    const id = `c0h3re-${String(++counter).padStart(6, '0')}`;
    const input = cohereChatInputTokens(body);
    const tool = chosenTool(body);
    const reply = FAKE_COHERE_WORDS.slice(0, typeof body.max_tokens === 'number' ? Math.min(chunkCount, body.max_tokens) : chunkCount);
    const args = JSON.stringify(FAKE_COHERE_TOOL_ARGS);
    const output = tool ? words(args).length + 4 : reply.length;
    const finish = tool ? 'TOOL_CALL' : reply.length < chunkCount ? 'MAX_TOKENS' : 'COMPLETE';
    const usage = { billed_units: { input_tokens: input, output_tokens: output }, tokens: { input_tokens: input + PREAMBLE_TOKENS, output_tokens: output } };
    const plan = tool ? `I will call ${tool}.` : undefined;
    const call = tool ? { id: `${tool}_fake${counter}`, type: 'function', function: { name: tool, arguments: args } } : undefined;
    if (body.stream !== true) {
      const template = documented(call ? 'chat.response.tool-call' : 'chat.response');
      const shown = template.message as Obj;
      const message = call
        ? { ...shown, tool_plan: plan, tool_calls: [{ ...(shown.tool_calls as Obj[])[0], ...call }] }
        : { ...shown, content: [{ ...(shown.content as Obj[])[0], text: reply.join(' ') }] };
      res.writeHead(200, { 'content-type': 'application/json' });
      // The usage is this answer's: the fake serves no prompt-cache hits (no `cached_tokens`).
      res.end(JSON.stringify({ ...template, id, finish_reason: finish, message, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const stream = call ? 'chat.stream.tool-call' : 'chat.stream';
    // Each event is the documented event of its type with this answer's values merged into its `delta.message`.
    const send = (type: string, extra: Obj = {}, message?: Obj) => {
      const ev = documentedEvent(stream, type);
      const delta = ev.delta as Obj | undefined;
      const data = message && delta ? { ...ev, ...extra, delta: { ...delta, message } } : { ...ev, ...extra };
      res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    send('message-start', { id });
    if (call) {
      send('tool-plan-delta', {}, { tool_plan: plan });
      send('tool-call-start', { index: 0 }, { tool_calls: { id: call.id, type: 'function', function: { name: tool, arguments: '' } } });
      const size = Math.ceil(args.length / 3);
      for (let i = 0; i < args.length; i += size) send('tool-call-delta', { index: 0 }, { tool_calls: { function: { arguments: args.slice(i, i + size) } } });
      send('tool-call-end', { index: 0 });
    } else {
      send('content-start', { index: 0 }, { content: { type: 'text', text: '' } });
      reply.forEach((w, i) => send('content-delta', { index: 0 }, { content: { text: i === 0 ? w : ` ${w}` } }));
      send('content-end', { index: 0 });
    }
    send('message-end', { delta: { finish_reason: finish, usage } });
    res.end();
  }

  function embed(res: ServerResponse, body: Record<string, unknown>): void {
    if (typeof body.model !== 'string' || !body.model) throw bad('model must be provided');
    if (!Array.isArray(body.texts) || body.texts.length === 0 || !body.texts.every((t) => typeof t === 'string')) throw bad('texts must be a non-empty list of strings');
    if (!['search_document', 'search_query', 'classification', 'clustering'].includes(String(body.input_type))) throw bad("input_type is required for embed models v3 and higher: one of 'search_document', 'search_query', 'classification', 'clustering'");
    const dims = typeof body.output_dimension === 'number' ? body.output_dimension : 8;
    const texts = body.texts as string[];
    res.writeHead(200, { 'content-type': 'application/json' });
    const template = documented('embed.response');
    const meta = template.meta as Obj;
    res.end(
      JSON.stringify({
        ...template,
        id: `emb-${++counter}`,
        texts,
        embeddings: { float: texts.map((t) => fakeEmbedding(t, dims)) },
        meta: { ...meta, billed_units: { input_tokens: texts.reduce((n, t) => n + words(t).length, 0) } },
      }),
    );
  }

  function rerank(res: ServerResponse, body: Record<string, unknown>): void {
    if (typeof body.model !== 'string' || !body.model) throw bad('model must be provided');
    if (typeof body.query !== 'string' || !body.query) throw bad('query must be a non-empty string');
    if (!Array.isArray(body.documents) || body.documents.length === 0) throw bad('documents must be a non-empty list');
    const docs = body.documents.map((d) => (typeof d === 'string' ? d : isRecord(d) && typeof d.text === 'string' ? d.text : ''));
    const topN = typeof body.top_n === 'number' ? body.top_n : undefined;
    const results = rankDocuments(body.query, docs, topN).map((r) => (body.return_documents === true ? { ...r, document: { text: docs[r.index] } } : r));
    res.writeHead(200, { 'content-type': 'application/json' });
    // One search unit per query of up to 100 documents, as documented.
    const template = documented('rerank.response');
    res.end(JSON.stringify({ ...template, id: `rr-${++counter}`, results }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const { body } = await readJsonBody(req);
    const record: CohereRecordedRequest = { path, headers: req.headers, body };
    requests.push(record);
    try {
      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      if (!auth) throw new CohereError(401, 'no api key supplied');
      if (opts.apiKeys && !opts.apiKeys.includes(auth[1]!)) throw new CohereError(INVALID_TOKEN.status, String(INVALID_TOKEN.body.message));
      if (!isRecord(body)) throw bad('request body must be a JSON object');
      if (fault && (fault.times === undefined || faultUses < fault.times)) {
        faultUses += 1;
        throw new CohereError(fault.status ?? RATE_LIMIT.status, fault.message ?? String(RATE_LIMIT.body.message));
      }
      if (req.method === 'POST' && path === '/v2/chat') return chat(res, body);
      if (req.method === 'POST' && path === '/v2/embed') return embed(res, body);
      if (req.method === 'POST' && path === '/v1/rerank') return rerank(res, body);
      throw new CohereError(404, `Not Found: ${req.method ?? 'GET'} ${path}`);
    } catch (err) {
      if (!(err instanceof CohereError)) throw err;
      record.rejected = { status: err.status, message: err.message };
      res.writeHead(err.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(cohereErrorBody(err)));
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `Fake upstream bug: ${String(err)}` }));
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
