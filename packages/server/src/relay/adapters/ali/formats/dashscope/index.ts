/**
 * Alibaba DashScope native APIs (reference §2) against OpenAI chat and embeddings: text-generation
 * (`{model, input:{messages}, parameters}` → `{output:{choices}, usage:{input_tokens,
 * output_tokens}}`, SSE frames with `incremental_output`) and text-embedding (`{input:{texts}}` →
 * `{output:{embeddings:[{text_index, embedding}]}}`), each turned into its OpenAI counterpart.
 */
import type { Lang } from '@modelgate/shared';
import { isObj, parseObject, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

/** The model and whether the caller asked for web search (`enable_search`, or the `-internet` model suffix). */
export function dashscopeModel(model: string): { model: string; search: boolean } {
  return model.endsWith('-internet') ? { model: model.slice(0, -'-internet'.length), search: true } : { model, search: false };
}

/** An OpenAI chat body → a text-generation body. Images are refused (the VL models take another API). */
export function dashscopeChatRequest(body: Record<string, unknown>, model: string, lang: Lang): Record<string, unknown> {
  const { model: name, search } = dashscopeModel(model);
  const messages = (Array.isArray(body.messages) ? (body.messages as unknown[]) : []).filter(isObj).map((m, i) => {
    if (Array.isArray(m.content) && m.content.some((p) => isObj(p) && p.type !== 'text')) throw unsupported(lang, `messages[${i}].content`, 'only text parts can be sent to DashScope text-generation');
    const out: Record<string, unknown> = { role: String(m.role ?? 'user').toLowerCase() === 'developer' ? 'system' : String(m.role ?? 'user').toLowerCase(), content: m.content === null || m.content === undefined ? '' : plainText(m.content) };
    if (Array.isArray(m.tool_calls)) out.tool_calls = m.tool_calls;
    if (typeof m.tool_call_id === 'string') out.tool_call_id = m.tool_call_id;
    if (typeof m.name === 'string') out.name = m.name;
    return out;
  });
  const p: Record<string, unknown> = { result_format: 'message' };
  if (body.stream === true) p.incremental_output = true;
  if (search || body.enable_search === true) p.enable_search = true;
  const max = typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : body.max_tokens;
  if (typeof max === 'number') p.max_tokens = max;
  if (typeof body.temperature === 'number') p.temperature = body.temperature;
  // DashScope's top_p is an open interval (0, 1).
  if (typeof body.top_p === 'number') p.top_p = Math.min(Math.max(body.top_p, 0.0001), 0.9999);
  if (typeof body.top_k === 'number') p.top_k = body.top_k;
  if (typeof body.seed === 'number') p.seed = body.seed;
  if (typeof body.presence_penalty === 'number') p.presence_penalty = body.presence_penalty;
  if (typeof body.stop === 'string') p.stop = [body.stop];
  else if (Array.isArray(body.stop)) p.stop = body.stop;
  if (Array.isArray(body.tools)) p.tools = body.tools;
  if (body.tool_choice !== undefined) p.tool_choice = body.tool_choice;
  return { model: name, input: { messages }, parameters: p };
}

/** An OpenAI embeddings body → a text-embedding body. */
export function dashscopeEmbeddingsRequest(body: Record<string, unknown>, model: string, lang: Lang): Record<string, unknown> {
  const texts = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) throw unsupported(lang, 'input', 'DashScope embeddings take a string or a list of strings');
  const out: Record<string, unknown> = { model, input: { texts } };
  if (typeof body.dimensions === 'number') out.parameters = { dimension: body.dimensions };
  return out;
}

/** DashScope's usage in OpenAI's words: cache hits and thinking tokens ride in the `*_details` OpenAI has for them. */
function usageOf(raw: unknown): Record<string, unknown> | undefined {
  if (!isObj(raw)) return undefined;
  const prompt = Number(raw.input_tokens ?? 0);
  const completion = Number(raw.output_tokens ?? 0);
  const out: Record<string, unknown> = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const cached = isObj(raw.prompt_tokens_details) ? Number(raw.prompt_tokens_details.cached_tokens ?? 0) : 0;
  const reasoning = isObj(raw.output_tokens_details) ? Number(raw.output_tokens_details.reasoning_tokens ?? 0) : 0;
  if (cached > 0) out.prompt_tokens_details = { cached_tokens: cached };
  if (reasoning > 0) out.completion_tokens_details = { reasoning_tokens: reasoning };
  return out;
}

const finishOf = (f: unknown): string | null => (typeof f === 'string' && f && f !== 'null' ? f : null);

/** A non-stream text-generation reply → an OpenAI chat completion. */
export function dashscopeChatResponse(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const output = isObj(json.output) ? json.output : {};
  const choices = Array.isArray(output.choices) ? output.choices.filter(isObj) : [];
  return {
    id: `chatcmpl-${String(json.request_id ?? '')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: choices.map((c, index) => {
      const m = isObj(c.message) ? c.message : {};
      const message: Record<string, unknown> = { role: 'assistant', content: typeof m.content === 'string' ? m.content : null, refusal: null };
      // A reasoning model's thinking: the OpenAI chat hub carries it as `reasoning_content`.
      if (typeof m.reasoning_content === 'string' && m.reasoning_content) message.reasoning_content = m.reasoning_content;
      if (Array.isArray(m.tool_calls)) message.tool_calls = m.tool_calls;
      return { index, message, finish_reason: finishOf(c.finish_reason) ?? 'stop' };
    }),
    usage: usageOf(json.usage),
  };
}

/** A text-embedding reply → OpenAI's list. */
export function dashscopeEmbeddingsResponse(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const output = isObj(json.output) ? json.output : {};
  const data = (Array.isArray(output.embeddings) ? output.embeddings.filter(isObj) : []).map((e) => ({ object: 'embedding', index: Number(e.text_index ?? 0), embedding: e.embedding }));
  const total = isObj(json.usage) ? Number(json.usage.total_tokens ?? 0) : 0;
  return { object: 'list', data, model, usage: { prompt_tokens: total, total_tokens: total } };
}

/** A reply that is DashScope's error object rather than an answer. */
export function dashscopeFailed(json: Record<string, unknown>): boolean {
  return typeof json.code === 'string' && json.code !== '' && json.output === undefined;
}

/** `{code, message, request_id}` as a wire error, or undefined for another body. */
export function dashscopeError(status: number, json: Record<string, unknown>): WireError | undefined {
  if (typeof json.code !== 'string' || !json.code) return undefined;
  return { status, type: json.code, code: json.code, param: typeof json.request_id === 'string' ? json.request_id : null, message: typeof json.message === 'string' && json.message ? json.message : json.code };
}

/**
 * Text-generation SSE events (`event:result`, or `event:error` with the error object) → OpenAI chat
 * chunk events. With `incremental_output` each frame carries only the new text; the usage (cumulative
 * in every frame) is passed on the last frame only, the one with a real `finish_reason`.
 */
export function dashscopeChunks(model: string) {
  let first = true;
  const created = Math.floor(Date.now() / 1000);
  return (ev: UpstreamEvent): UpstreamEvent | undefined => {
    const json = parseObject(ev.data);
    if (!json) return undefined;
    if (ev.event === 'error' || dashscopeFailed(json)) {
      const e = dashscopeError(500, json);
      return { event: undefined, data: JSON.stringify({ error: { type: e?.type ?? 'upstream_error', code: e?.code ?? null, message: e?.message ?? 'the upstream reported an error in the stream' } }) };
    }
    const output = isObj(json.output) ? json.output : {};
    const choice = Array.isArray(output.choices) && isObj(output.choices[0]) ? output.choices[0] : {};
    const m = isObj(choice.message) ? choice.message : {};
    const delta: Record<string, unknown> = { content: typeof m.content === 'string' ? m.content : '' };
    if (typeof m.reasoning_content === 'string' && m.reasoning_content) delta.reasoning_content = m.reasoning_content;
    if (Array.isArray(m.tool_calls)) delta.tool_calls = m.tool_calls;
    if (first) delta.role = 'assistant';
    first = false;
    const finish = finishOf(choice.finish_reason);
    const chunk: Record<string, unknown> = { id: `chatcmpl-${String(json.request_id ?? '')}`, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] };
    if (finish) chunk.usage = usageOf(json.usage);
    return { event: undefined, data: JSON.stringify(chunk) };
  };
}
