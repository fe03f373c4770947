/**
 * Zhipu's v3 model API (`/api/paas/v3/model-api/{model}/invoke|sse-invoke`, reference §4) against
 * OpenAI chat: the `prompt` request, the `{code,msg,success,data}` reply and the `sse-invoke` event
 * stream (`event:add|finish|error|interrupted`, usage in the finish event's `meta:` line), each
 * turned into its OpenAI chat counterpart so the OpenAI readers and converters serve every caller.
 */
import { isObj, plainText } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

/** An OpenAI chat body → the v3 request: roles kept, content flattened to text, the sampling knobs v3 has. */
export function zhipuV3Request(body: Record<string, unknown>): Record<string, unknown> {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const prompt = messages.filter(isObj).map((m) => ({ role: m.role === 'assistant' ? 'assistant' : m.role === 'system' ? 'system' : 'user', content: plainText(m.content) }));
  const out: Record<string, unknown> = { prompt };
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  // v3 takes top_p in the open interval (0, 1).
  if (typeof body.top_p === 'number') out.top_p = Math.min(Math.max(body.top_p, 0.01), 0.99);
  // Each `add` event carries only the new text.
  if (body.stream === true) out.incremental = true;
  return out;
}

function v3Usage(raw: unknown): Record<string, number> | undefined {
  if (!isObj(raw)) return undefined;
  const p = Number(raw.prompt_tokens ?? 0);
  const c = Number(raw.completion_tokens ?? 0);
  return { prompt_tokens: p, completion_tokens: c, total_tokens: Number(raw.total_tokens ?? p + c) };
}

/** The v3 wraps content in literal quotes (`"\"…\""`): they are not part of the answer. */
function unquote(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1).replace(/\\n/g, '\n').replace(/\\"/g, '"') : s;
}

/** A successful v3 reply → an OpenAI chat completion. */
export function zhipuV3Response(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const data = isObj(json.data) ? json.data : {};
  const choices = Array.isArray(data.choices) ? (data.choices as unknown[]).filter(isObj) : [];
  const content = choices.map((c) => unquote(typeof c.content === 'string' ? c.content : '')).join('');
  return {
    id: `chatcmpl-${String(data.task_id ?? data.request_id ?? '')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }],
    usage: v3Usage(data.usage),
  };
}

/** A 200 v3 reply that reports a failure. */
export function zhipuV3Failed(json: Record<string, unknown>): boolean {
  return json.success === false;
}

/** A v3 error body (`{code,msg,success:false}`) as a wire error. */
export function zhipuV3Error(status: number, json: Record<string, unknown>): WireError | undefined {
  if (typeof json.msg !== 'string' || !json.msg) return undefined;
  return { status, type: 'zhipu_error', code: json.code === undefined ? null : String(json.code), param: null, message: json.msg };
}

interface V3Event {
  event: string;
  id: string;
  data: string[];
  meta?: string;
}

/**
 * Decodes `sse-invoke` bytes into OpenAI chat chunk events as they arrive. `add` → a content delta
 * (several `data:` lines of one event are joined by newlines); `finish` → the final chunk with
 * `finish_reason` and the usage of its `meta`; `error` and `interrupted` → an OpenAI error event,
 * never content.
 */
export function zhipuV3Events(model: string) {
  return async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
    const decoder = new TextDecoder();
    let pending = '';
    let cur: V3Event | undefined;
    // OpenAI names the role on the first delta only.
    let first = true;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (id: string, delta: Record<string, unknown>, finish: string | null, usage?: unknown): UpstreamEvent => ({
      event: undefined,
      data: JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) }),
    });
    const flush = (): UpstreamEvent | undefined => {
      const ev = cur;
      cur = undefined;
      if (!ev) return undefined;
      const text = ev.data.join('\n');
      if (ev.event === 'add') {
        const delta = first ? { role: 'assistant', content: text } : { content: text };
        first = false;
        return chunk(ev.id, delta, null);
      }
      if (ev.event === 'finish') {
        let meta: Record<string, unknown> = {};
        try {
          const m = JSON.parse(ev.meta ?? '{}') as unknown;
          if (isObj(m)) meta = m;
        } catch {
          meta = {};
        }
        return chunk(String(meta.task_id ?? ev.id), text ? { content: text } : {}, 'stop', v3Usage(meta.usage));
      }
      if (ev.event === 'error' || ev.event === 'interrupted') {
        return { event: undefined, data: JSON.stringify({ error: { type: 'zhipu_error', code: ev.event, message: text || `the upstream stream ended with "${ev.event}"` } }) };
      }
      return undefined;
    };
    const line = (l: string): UpstreamEvent | undefined => {
      if (l === '') return flush();
      const colon = l.indexOf(':');
      if (colon <= 0) return undefined;
      const field = l.slice(0, colon);
      const value = l.slice(colon + 1);
      cur ??= { event: 'add', id: '', data: [] };
      if (field === 'event') cur.event = value;
      else if (field === 'id') cur.id = value;
      else if (field === 'data') cur.data.push(value);
      else if (field === 'meta') cur.meta = value;
      return undefined;
    };
    for await (const buf of body) {
      pending += decoder.decode(buf, { stream: true });
      let nl = pending.search(/\r?\n/);
      while (nl >= 0) {
        const l = pending.slice(0, nl);
        pending = pending.slice(pending[nl] === '\r' ? nl + 2 : nl + 1);
        const ev = line(l);
        if (ev) yield ev;
        nl = pending.search(/\r?\n/);
      }
    }
    pending += decoder.decode();
    if (pending) {
      const ev = line(pending);
      if (ev) yield ev;
    }
    const last = flush();
    if (last) yield last;
  };
}
