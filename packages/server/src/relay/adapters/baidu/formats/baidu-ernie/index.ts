/**
 * Baidu ERNIE (Wenxin workshop v1, reference §1) against OpenAI chat and embeddings: the
 * `{messages, system, …}` request, the `{result, usage}` reply, the `data: {…,"is_end"}` stream and
 * the `{error_code, error_msg}` errors, each turned into its OpenAI counterpart so the OpenAI
 * readers and converters serve every caller.
 */
import type { Lang } from '@modelgate/shared';
import { isObj, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

/** Error codes that mean the access token is no longer good: drop it, get a new one, try again once. */
export const BAIDU_TOKEN_CODES = new Set([110, 111]);

/**
 * An OpenAI chat body → an ERNIE chat body. ERNIE takes one `system` string and turns that
 * alternate user / assistant, starting and ending with the user's: anything else is refused here
 * with a 400 naming the rule, rather than left to the upstream's numeric code.
 */
export function baiduChatRequest(body: Record<string, unknown>, lang: Lang): Record<string, unknown> {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]).filter(isObj) : [];
  if (body.tools !== undefined || body.functions !== undefined) throw unsupported(lang, 'tools', 'ERNIE chat on this channel type does not take tools');
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => plainText(m.content));
  const turns = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  turns.forEach((m, i) => {
    const want = i % 2 === 0 ? 'user' : 'assistant';
    if (m.role !== want) throw unsupported(lang, `messages[${i}].role`, `ERNIE needs turns alternating user and assistant, starting with the user's (found ${String(m.role)} where ${want} belongs)`);
  });
  if (turns.length % 2 === 0) throw unsupported(lang, 'messages', "ERNIE needs the last turn to be the user's (an odd number of user/assistant turns)");
  const out: Record<string, unknown> = { messages: turns.map((m) => ({ role: m.role, content: plainText(m.content) })) };
  if (system.length) out.system = system.join('\n');
  // ERNIE's temperature and top_p exclude 0: a 0 is left to the model's default.
  if (typeof body.temperature === 'number' && body.temperature > 0) out.temperature = Math.min(body.temperature, 1);
  if (typeof body.top_p === 'number' && body.top_p > 0) out.top_p = Math.min(body.top_p, 1);
  // penalty_score spans [1, 2]: OpenAI's positive frequency_penalty (0, 2] is mapped onto it.
  if (typeof body.frequency_penalty === 'number' && body.frequency_penalty > 0) out.penalty_score = Math.min(2, 1 + body.frequency_penalty / 2);
  const max = typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : body.max_tokens;
  if (typeof max === 'number' && max > 0) out.max_output_tokens = Math.max(2, max);
  if (typeof body.stop === 'string') out.stop = [body.stop];
  else if (Array.isArray(body.stop)) out.stop = body.stop;
  if (typeof body.user === 'string' && body.user) out.user_id = body.user;
  if (body.stream === true) out.stream = true;
  return out;
}

/** An OpenAI embeddings body → ERNIE's `{input:[…]}`. */
export function baiduEmbeddingsRequest(body: Record<string, unknown>, lang: Lang): Record<string, unknown> {
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === 'string')) throw unsupported(lang, 'input', 'ERNIE embeddings take a string or a list of strings');
  const out: Record<string, unknown> = { input };
  if (typeof body.user === 'string' && body.user) out.user_id = body.user;
  return out;
}

const FINISH: Record<string, string> = { normal: 'stop', stop: 'stop', length: 'length', content_filter: 'content_filter', function_call: 'tool_calls' };

function usageOf(raw: unknown): Record<string, number> | undefined {
  if (!isObj(raw)) return undefined;
  const prompt = Number(raw.prompt_tokens ?? 0);
  const total = Number(raw.total_tokens ?? 0);
  // Some replies leave completion_tokens out: it is what the total adds to the prompt.
  const completion = typeof raw.completion_tokens === 'number' && raw.completion_tokens > 0 ? raw.completion_tokens : Math.max(0, total - prompt);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A 200 ERNIE reply that reports a failure. */
export function baiduFailed(json: Record<string, unknown>): boolean {
  return json.error_code !== undefined && json.error_code !== 0;
}

/** The status an ERNIE error code stands for. */
function statusOf(code: number): number {
  if (BAIDU_TOKEN_CODES.has(code) || code === 13 || code === 14 || code === 15) return 401;
  if (code === 6 || code === 336002 || code === 336003 || code === 336006 || code === 336007 || code === 336104) return 400;
  if (code === 4 || code === 17 || code === 18 || code === 19 || code === 336100 || code === 336501 || code === 336502) return 429;
  return 500;
}

/** `{error_code, error_msg}` as a wire error, or undefined for another body. */
export function baiduError(json: Record<string, unknown>): WireError | undefined {
  if (!baiduFailed(json)) return undefined;
  const code = Number(json.error_code);
  return { status: statusOf(code), type: 'baidu_error', code: String(json.error_code), param: null, message: typeof json.error_msg === 'string' && json.error_msg ? json.error_msg : `ERNIE error ${code}` };
}

/** A non-stream ERNIE chat reply → an OpenAI chat completion. */
export function baiduChatResponse(json: Record<string, unknown>, model: string): Record<string, unknown> {
  return {
    id: String(json.id ?? ''),
    object: 'chat.completion',
    created: typeof json.created === 'number' ? json.created : Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: typeof json.result === 'string' ? json.result : '', refusal: null }, finish_reason: FINISH[String(json.finish_reason ?? 'normal')] ?? 'stop' }],
    usage: usageOf(json.usage),
  };
}

/** An ERNIE embeddings reply → OpenAI's list (the upstream's own id and timestamps left out). */
export function baiduEmbeddingsResponse(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const data = Array.isArray(json.data) ? json.data.filter(isObj).map((d, i) => ({ object: 'embedding', index: typeof d.index === 'number' ? d.index : i, embedding: d.embedding })) : [];
  return { object: 'list', data, model, usage: { prompt_tokens: Number(isObj(json.usage) ? (json.usage.prompt_tokens ?? 0) : 0), total_tokens: Number(isObj(json.usage) ? (json.usage.total_tokens ?? 0) : 0) } };
}

/**
 * Decodes an ERNIE stream (`data: {…}` lines; an error is a bare JSON line) into OpenAI chat
 * chunk events: each frame's `result` a content delta, the `is_end` frame the finish reason and
 * the usage, an `error_code` an OpenAI error event.
 */
export function baiduEvents(model: string) {
  return async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
    const decoder = new TextDecoder();
    let pending = '';
    let first = true;
    const convert = (line: string): UpstreamEvent | undefined => {
      const text = line.startsWith('data:') ? line.slice(5).trim() : line.trim();
      if (!text.startsWith('{')) return undefined;
      let json: Record<string, unknown>;
      try {
        const v = JSON.parse(text) as unknown;
        if (!isObj(v)) return undefined;
        json = v;
      } catch {
        return undefined;
      }
      const err = baiduError(json);
      if (err) return { event: undefined, data: JSON.stringify({ error: { type: err.type, code: err.code, message: err.message } }) };
      const end = json.is_end === true;
      const delta: Record<string, unknown> = { content: typeof json.result === 'string' ? json.result : '' };
      if (first) delta.role = 'assistant';
      first = false;
      const chunk: Record<string, unknown> = {
        id: String(json.id ?? ''),
        object: 'chat.completion.chunk',
        created: typeof json.created === 'number' ? json.created : Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, delta, finish_reason: end ? (FINISH[String(json.finish_reason ?? 'normal')] ?? 'stop') : null }],
      };
      if (end) chunk.usage = usageOf(json.usage);
      return { event: undefined, data: JSON.stringify(chunk) };
    };
    for await (const buf of body) {
      pending += decoder.decode(buf, { stream: true });
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        const ev = convert(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        if (ev) yield ev;
        nl = pending.indexOf('\n');
      }
    }
    pending += decoder.decode();
    const ev = convert(pending);
    if (ev) yield ev;
  };
}
