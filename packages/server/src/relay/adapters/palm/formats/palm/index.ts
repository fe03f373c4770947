import { plainText, isObj } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

/**
 * Google PaLM 2 `generateMessage` (v1beta2; providers-international §3): an upstream format only,
 * reached from an OpenAI chat body. No usage is reported (counted locally) and nothing streams:
 * a streamed caller gets the whole reply as one OpenAI chunk.
 */

/** OpenAI chat body → `{prompt:{context?,messages:[{author,content}]},temperature?,topP?,candidateCount}`. */
export function palmRequest(body: Record<string, unknown>): Record<string, unknown> {
  const context: string[] = [];
  const messages: Array<{ author: string; content: string }> = [];
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObj(m)) continue;
    const text = plainText(m.content);
    // System text is PaLM's prompt context; the user is author "0", everyone else "1".
    if (m.role === 'system' || m.role === 'developer') context.push(text);
    else messages.push({ author: m.role === 'user' ? '0' : '1', content: text });
  }
  const out: Record<string, unknown> = { prompt: context.length ? { context: context.join('\n'), messages } : { messages }, candidateCount: 1 };
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.topP = body.top_p;
  return out;
}

/** The first candidate's text ('' when PaLM's filters blocked the reply). */
export function palmText(json: Record<string, unknown>): string {
  const first = Array.isArray(json.candidates) ? json.candidates[0] : undefined;
  return isObj(first) && typeof first.content === 'string' ? first.content : '';
}

/** A 200 with no candidate but filters: the reply was blocked. */
export function palmBlocked(json: Record<string, unknown>): WireError | undefined {
  if (Array.isArray(json.candidates) && json.candidates.length > 0) return undefined;
  const f = Array.isArray(json.filters) ? json.filters[0] : undefined;
  const why = isObj(f) ? (typeof f.message === 'string' && f.message ? f.message : String(f.reason ?? 'BLOCKED')) : 'the reply has no candidates';
  return { status: 400, type: 'upstream_error', code: 'palm_blocked', param: null, message: `PaLM returned no candidate: ${why}` };
}

/** A PaLM reply → an OpenAI chat completion (usage written once counted). */
export function palmChatCompletion(json: Record<string, unknown>, model: string, requestId: string): Record<string, unknown> {
  return {
    id: `chatcmpl-${requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: palmText(json) }, finish_reason: 'stop' }],
  };
}

/**
 * The whole JSON reply read as one upstream "event": the OpenAI chunk of its text with
 * `finish_reason:"stop"`; a blocked reply becomes an OpenAI error chunk.
 */
export function palmSimulatedEvents(model: string, requestId: string) {
  return async function* (body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
    const parts: Buffer[] = [];
    for await (const b of body) parts.push(b);
    let json: unknown;
    try {
      json = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      json = undefined;
    }
    const blocked = isObj(json) ? palmBlocked(json) : { status: 502, type: 'upstream_error', code: 'bad_response', param: null, message: 'PaLM answered a body that is not JSON' };
    if (blocked) {
      yield { event: undefined, data: JSON.stringify({ error: { message: blocked.message, type: blocked.type, code: blocked.code, param: null } }) };
      return;
    }
    const chunk = {
      id: `chatcmpl-${requestId}`,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, delta: { role: 'assistant', content: palmText(json as Record<string, unknown>) }, finish_reason: 'stop' }],
    };
    yield { event: undefined, data: JSON.stringify(chunk) };
  };
}

/** Google's error body `{"error":{"code","message","status"}}`. */
export function palmError(status: number, body: string): WireError | undefined {
  try {
    const json = JSON.parse(body) as unknown;
    const err = isObj(json) && isObj(json.error) ? json.error : undefined;
    if (!err || typeof err.message !== 'string') return undefined;
    // A refused key is a 400 INVALID_ARGUMENT whose details name the reason API_KEY_INVALID.
    const reason = Array.isArray(err.details) ? err.details.map((d) => (isObj(d) && typeof d.reason === 'string' ? d.reason : '')).find(Boolean) : undefined;
    return { status, type: 'upstream_error', code: reason ?? (typeof err.status === 'string' ? err.status : null), param: null, message: err.message };
  } catch {
    return undefined;
  }
}
