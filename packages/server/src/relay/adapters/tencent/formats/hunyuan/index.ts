/**
 * Tencent Hunyuan ChatCompletions (API 2023-09-01, reference §5) against OpenAI chat: the
 * `{Model, Messages:[{Role, Content}], Stream, …}` request, the `{Response:{Choices, Usage}}` reply,
 * the `data: {Choices:[{Delta}]}` stream (no `[DONE]`, cumulative `Usage`) and the
 * `{Response:{Error:{Code, Message}}}` errors (HTTP 200, `Code` a string).
 */
import type { Lang } from '@modelgate/shared';
import { isObj, parseObject, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

/**
 * An OpenAI chat body → a Hunyuan body. Hunyuan takes an optional leading system message, then
 * turns alternating user / assistant ending with the user's; anything else is refused with a 400.
 */
export function hunyuanRequest(body: Record<string, unknown>, model: string, lang: Lang): Record<string, unknown> {
  if (body.tools !== undefined) throw unsupported(lang, 'tools', 'Hunyuan chat on this channel type does not take tools');
  const messages = (Array.isArray(body.messages) ? (body.messages as unknown[]) : []).filter(isObj);
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => plainText(m.content));
  const turns = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  turns.forEach((m, i) => {
    const want = i % 2 === 0 ? 'user' : 'assistant';
    if (m.role !== want) throw unsupported(lang, `messages[${i}].role`, `Hunyuan needs turns alternating user and assistant, starting with the user's (found ${String(m.role)} where ${want} belongs)`);
  });
  if (turns.length % 2 === 0) throw unsupported(lang, 'messages', "Hunyuan needs the last turn to be the user's");
  const out: Record<string, unknown> = {
    Model: model,
    Messages: [...(system.length ? [{ Role: 'system', Content: system.join('\n') }] : []), ...turns.map((m) => ({ Role: String(m.role), Content: plainText(m.content) }))],
    Stream: body.stream === true,
  };
  if (typeof body.top_p === 'number') out.TopP = body.top_p;
  if (typeof body.temperature === 'number') out.Temperature = body.temperature;
  return out;
}

function usageOf(raw: unknown): Record<string, number> | undefined {
  if (!isObj(raw)) return undefined;
  const prompt = Number(raw.PromptTokens ?? 0);
  const completion = Number(raw.CompletionTokens ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

const finishOf = (f: unknown): string | null => (typeof f === 'string' && f ? (f === 'sensitive' ? 'content_filter' : f) : null);

/** A non-stream reply → an OpenAI chat completion. */
export function hunyuanResponse(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const r = isObj(json.Response) ? json.Response : {};
  const choices = Array.isArray(r.Choices) ? r.Choices.filter(isObj) : [];
  return {
    id: String(r.Id ?? r.RequestId ?? ''),
    object: 'chat.completion',
    created: typeof r.Created === 'number' ? r.Created : Math.floor(Date.now() / 1000),
    model,
    choices: choices.map((c, index) => {
      const m = isObj(c.Message) ? c.Message : {};
      return { index, message: { role: 'assistant', content: typeof m.Content === 'string' ? m.Content : '', refusal: null }, finish_reason: finishOf(c.FinishReason) ?? 'stop' };
    }),
    usage: usageOf(r.Usage),
  };
}

/** A 200 reply carrying `Response.Error`. */
export function hunyuanFailed(json: Record<string, unknown>): boolean {
  return isObj(json.Response) && isObj(json.Response.Error);
}

/** The status a Hunyuan error code stands for. */
/** The one AuthFailure that is not the key's: the request's own timestamp was too old. */
export const SIGNATURE_EXPIRED = 'AuthFailure.SignatureExpire';

function statusOf(code: string): number {
  // Our signing clock is off (TC3 timestamps expire after 5 minutes): no fault of the caller's key or the channel's.
  if (code === SIGNATURE_EXPIRED) return 500;
  if (code.startsWith('AuthFailure')) return 401;
  if (code.startsWith('LimitExceeded') || code.startsWith('RequestLimitExceeded')) return 429;
  if (code.startsWith('InvalidParameter') || code.startsWith('MissingParameter') || code.startsWith('UnknownParameter')) return 400;
  if (code.startsWith('ResourceInsufficient') || code.startsWith('ResourceUnavailable') || code.startsWith('UnauthorizedOperation')) return 403;
  return 500;
}

/** `Response.Error` as a wire error (401 for AuthFailure.*, 429 for limits, 400 for parameters, 403 for an exhausted account). */
export function hunyuanError(json: Record<string, unknown>): WireError | undefined {
  const r = isObj(json.Response) ? json.Response : undefined;
  const e = r && isObj(r.Error) ? r.Error : undefined;
  if (!e) return undefined;
  const code = String(e.Code ?? 'InternalError');
  return { status: statusOf(code), type: 'tencent_error', code, param: typeof r!.RequestId === 'string' ? r!.RequestId : null, message: typeof e.Message === 'string' && e.Message ? e.Message : code };
}

/** Stream frames → OpenAI chat chunk events; the cumulative `Usage` is passed on the finishing frame only. */
export function hunyuanChunks(model: string) {
  let first = true;
  return (ev: UpstreamEvent): UpstreamEvent | undefined => {
    const json = parseObject(ev.data);
    if (!json) return undefined;
    const err = hunyuanError(json);
    if (err) return { event: undefined, data: JSON.stringify({ error: { type: err.type, code: err.code, message: err.message } }) };
    const choice = Array.isArray(json.Choices) && isObj(json.Choices[0]) ? json.Choices[0] : {};
    const d = isObj(choice.Delta) ? choice.Delta : {};
    const delta: Record<string, unknown> = { content: typeof d.Content === 'string' ? d.Content : '' };
    if (first) delta.role = 'assistant';
    first = false;
    const finish = finishOf(choice.FinishReason);
    const chunk: Record<string, unknown> = {
      id: String(json.Id ?? ''),
      object: 'chat.completion.chunk',
      created: typeof json.Created === 'number' ? json.Created : Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    };
    if (finish) chunk.usage = usageOf(json.Usage);
    return { event: undefined, data: JSON.stringify(chunk) };
  };
}
