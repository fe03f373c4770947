// The chaos soak's traffic: the request mix, the client loops and how each answer is classified
// (served / refused / failed, and why). Every record keeps the relay's request id
// (`x-oneapi-request-id`) and, for a served answer, the usage it reported, so the audit can hold
// the database to "charged once, for exactly this".
import { Pool } from 'undici';

export const MODELS = { chat: 'chaos-chat', anth: 'chaos-anth', embed: 'chaos-embed' };
const ask = (n) => [{ role: 'user', content: `Hello there, how are you today? (${n})` }];

/**
 * The mix: name, weight, request(key, n). Every text request sets max_tokens, so what a request
 * can cost is bounded (the audit's ceiling for a cut stream). `n` makes each prompt distinct.
 */
export const MIX = [
  ['chat', 28, (key, n) => openai('/v1/chat/completions', key, { model: MODELS.chat, messages: ask(n), max_tokens: 16 })],
  ['chat stream', 24, (key, n) => openai('/v1/chat/completions', key, { model: MODELS.chat, messages: ask(n), max_tokens: 16, stream: true, stream_options: { include_usage: true } })],
  ['converted stream', 14, (key, n) => openai('/v1/chat/completions', key, { model: MODELS.anth, messages: ask(n), max_tokens: 16, stream: true, stream_options: { include_usage: true } })],
  ['messages ingress', 12, (key, n) => ({ path: '/v1/messages', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' }, body: { model: MODELS.chat, max_tokens: 16, messages: ask(n) } })],
  ['embeddings', 10, (key, n) => openai('/v1/embeddings', key, { model: MODELS.embed, input: `chaos soak embedding input number ${n}` })],
  ['bad key', 6, (_key, n) => openai('/v1/chat/completions', 'sk-chaosnotakey000000000000000000000000000000000', { model: MODELS.chat, messages: ask(n), max_tokens: 16 })],
  ['unknown model', 6, (key, n) => openai('/v1/chat/completions', key, { model: 'chaos-nobody-serves-this', messages: ask(n), max_tokens: 16 })],
];

function openai(path, key, body) {
  return { path, headers: { authorization: `Bearer ${key}` }, body };
}

/** A refusal or failure's label from its status and error body (the reasons the report groups by). */
export function reasonOf(status, error) {
  const code = error?.code ?? error?.type ?? '';
  const msg = String(error?.message ?? '');
  const text = `${code} ${msg}`;
  if (status === 503 && /overload|busy|too many requests in flight|event.loop/i.test(text)) return 'overload 503';
  if (/database|db_unavailable/i.test(text)) return `database unavailable ${status}`;
  if (/circuit/i.test(text)) return `circuit open ${status}`;
  if (status === 429 && /saturated/i.test(text)) return 'upstream saturated 429';
  if (status === 429 && /rate/i.test(text)) return 'rate limit 429';
  if (/insufficient_user_quota|user quota/i.test(text)) return `user quota ${status}`;
  if (/pre_consume_token_quota_failed|token quota|exhausted|额度/i.test(text)) return `token quota ${status}`;
  if (status === 401) return 'bad key 401';
  if (/no available channel|model_not_found|not found.*model|model.*not (found|available|exist)|无可用渠道/i.test(text)) return `unknown model / no channel ${status}`;
  return `${status} ${code || msg.slice(0, 40)}`;
}

/** A status the gateway chose (a refusal) rather than an upstream or internal failure. */
const refusal = (status) => status < 500 || status === 503;

/** The first JSON `error` object in an SSE body (OpenAI `data:` or Anthropic `event: error`). */
function sseError(text) {
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (!data.startsWith('{')) continue;
    try {
      const j = JSON.parse(data);
      if (j.error) return typeof j.error === 'object' ? j.error : { message: String(j.error) };
    } catch {
      /* a frame cut mid-way */
    }
  }
  return null;
}

function lastUsage(text) {
  let usage = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:') || !line.includes('"usage"')) continue;
    try {
      const j = JSON.parse(line.slice(5).trim());
      if (j.usage) usage = j.usage;
    } catch {
      /* cut frame */
    }
  }
  return usage;
}

/** Normalises an OpenAI or Anthropic usage object to { prompt, completion }. */
export function usageOf(u) {
  if (!u) return null;
  return { prompt: Number(u.prompt_tokens ?? u.input_tokens ?? 0), completion: Number(u.completion_tokens ?? u.output_tokens ?? 0) };
}

/** Classifies one finished exchange: { outcome, reason?, usage?, errorMessage? }. */
export function classify(kind, stream, status, text) {
  if (status !== 200) {
    let error = null;
    try {
      const j = JSON.parse(text);
      error = j.error && typeof j.error === 'object' ? j.error : { message: j.message ?? text.slice(0, 120) };
    } catch {
      error = { message: text.slice(0, 120) };
    }
    const reason = reasonOf(status, error);
    return { outcome: refusal(status) ? 'refused' : 'failed', reason: refusal(status) ? reason : `${status} from the gateway: ${reason}`, example: error?.message };
  }
  if (stream) {
    const err = sseError(text);
    if (err) return { outcome: 'failed', reason: `stream ended with an error event: ${err.code ?? err.type ?? 'error'}`, example: err.message, cut: true };
    if (!/data: \[DONE\]\s*$/.test(text.trimEnd() + '\n')) return { outcome: 'failed', reason: 'stream ended without [DONE] or an error event', cut: true };
    const usage = usageOf(lastUsage(text));
    return usage ? { outcome: 'served', usage } : { outcome: 'served', reason: 'no usage frame' };
  }
  try {
    const j = JSON.parse(text);
    const usage = usageOf(j.usage);
    if (kind === 'embeddings' ? Array.isArray(j.data) : kind === 'messages ingress' ? Array.isArray(j.content) : Array.isArray(j.choices)) {
      return usage ? { outcome: 'served', usage } : { outcome: 'served', reason: 'no usage' };
    }
    return { outcome: 'failed', reason: '200 without an answer' };
  } catch {
    return { outcome: 'failed', reason: '200 with a body cut short', cut: true };
  }
}

/** One request of `kind` for `caller` through `pool` (a node), classified. */
export async function exchange(pool, nodeName, kind, caller, n) {
  const req = MIX.find((m) => m[0] === kind)[2](caller.key, n);
  const stream = req.body.stream === true;
  const rec = { kind, node: nodeName, userId: caller.userId, user: caller.name, t: Date.now(), stream };
  try {
    const res = await pool.request({ method: 'POST', path: req.path, body: JSON.stringify(req.body), headers: { 'content-type': 'application/json', ...req.headers } });
    rec.status = res.statusCode;
    rec.id = res.headers['x-oneapi-request-id'] ?? null;
    let text = '';
    try {
      text = await res.body.text();
    } catch (err) {
      // The body broke off (a reset mid-answer): a cut, whatever had arrived.
      Object.assign(rec, { outcome: 'failed', reason: `connection lost mid-answer (${err.code ?? err.name})`, cut: true });
    }
    if (!rec.outcome) Object.assign(rec, classify(kind, stream, res.statusCode, text));
  } catch (err) {
    Object.assign(rec, { outcome: 'failed', reason: `connection error (${err.code ?? err.name})`, id: null });
  }
  rec.ms = Date.now() - rec.t;
  return rec;
}

/**
 * Runs `loops` client loops until `endAt`, spread over `nodes()` (the live list: a killed node's
 * requests fail with connection errors, as a client pinned to it would see). `callers`:
 * [{ key, weight, userId }]. Returns the records.
 */
export async function runTraffic({ nodes, callers, loops, endAt }) {
  const pools = new Map();
  const poolFor = (url) => {
    if (!pools.has(url)) pools.set(url, new Pool(url, { connections: loops, headersTimeout: 90_000, bodyTimeout: 90_000, keepAliveTimeout: 4_000 }));
    return pools.get(url);
  };
  const records = [];
  const mixTotal = MIX.reduce((a, m) => a + m[1], 0);
  const callerTotal = callers.reduce((a, c) => a + c.weight, 0);
  const pick = (list, total, weight) => {
    let x = Math.random() * total;
    for (const item of list) if ((x -= weight(item)) < 0) return item;
    return list[0];
  };
  let n = 0;
  const loop = async () => {
    while (Date.now() < endAt) {
      const [kind] = pick(MIX, mixTotal, (m) => m[1]);
      const caller = pick(callers, callerTotal, (c) => c.weight);
      const list = nodes();
      const node = list[Math.floor(Math.random() * list.length)];
      const rec = await exchange(poolFor(node.url), node.name, kind, caller, ++n);
      // A refused connection (the killed node) fails at once: do not spin.
      if (rec.reason?.startsWith('connection error')) await new Promise((r) => setTimeout(r, 50));
      records.push(rec);
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  await Promise.all([...pools.values()].map((p) => p.close().catch(() => {})));
  return records;
}
