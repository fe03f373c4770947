import { isObj, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';

/**
 * OpenAI chat request → Cohere Chat v2 (providers-international §6.2). Roles keep their names;
 * text and image parts pass in Cohere's block shape; tool calls and tools are OpenAI-shaped
 * already. What Cohere cannot express is refused with a 400 naming the field.
 */
const ACCOUNT_ONLY = new Set(['store', 'metadata', 'service_tier', 'prompt_cache_key', 'safety_identifier', 'stream_options', 'user', 'parallel_tool_calls']);
const MAPPED = new Set(['model', 'messages', 'stream', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'n', 'seed', 'presence_penalty', 'frequency_penalty', 'response_format', 'tools', 'tool_choice', 'logprobs']);

function content(c: unknown, at: string, cx: ConvertContext): unknown {
  if (typeof c === 'string' || c === null || c === undefined) return c ?? '';
  if (!Array.isArray(c)) throw unsupported(cx.lang, at, 'content must be a string or a list of parts');
  return c.map((p, i) => {
    if (isObj(p) && p.type === 'text') return { type: 'text', text: String(p.text ?? '') };
    if (isObj(p) && p.type === 'image_url' && isObj(p.image_url)) return { type: 'image_url', image_url: { url: String(p.image_url.url ?? '') } };
    throw unsupported(cx.lang, `${at}.${i}`, 'only text and image_url parts are supported by Cohere');
  });
}

function message(m: unknown, i: number, cx: ConvertContext): Record<string, unknown> {
  if (!isObj(m)) throw unsupported(cx.lang, `messages.${i}`, 'not a message');
  const at = `messages.${i}`;
  switch (m.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: plainText(m.content) };
    case 'user':
      return { role: 'user', content: content(m.content, `${at}.content`, cx) };
    case 'assistant': {
      const out: Record<string, unknown> = { role: 'assistant' };
      const text = plainText(m.content);
      if (Array.isArray(m.tool_calls) && m.tool_calls.length) {
        out.tool_calls = m.tool_calls.map((c) => (isObj(c) && isObj(c.function) ? { id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments ?? '{}' } } : c));
        // Cohere keeps the text before a tool call as the tool plan.
        if (text) out.tool_plan = text;
      } else out.content = text;
      return out;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: m.tool_call_id, content: typeof m.content === 'string' ? m.content : plainText(m.content) };
    default:
      throw unsupported(cx.lang, `${at}.role`, `role ${String(m.role)} is not supported by Cohere`);
  }
}

export function openAIToCohereRequest(body: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  for (const key of Object.keys(body)) if (!MAPPED.has(key) && !ACCOUNT_ONLY.has(key)) throw unsupported(cx.lang, key, 'not supported by Cohere');
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw unsupported(cx.lang, 'n', 'Cohere returns one choice');
  if (body.logprobs === true) throw unsupported(cx.lang, 'logprobs', 'not supported by Cohere');
  const out: Record<string, unknown> = { model: cx.model, messages: (Array.isArray(body.messages) ? body.messages : []).map((m, i) => message(m, i, cx)) };
  if (body.stream === true) out.stream = true;
  const max = body.max_completion_tokens ?? body.max_tokens;
  if (max !== undefined && max !== null) out.max_tokens = max;
  if (body.temperature !== undefined && body.temperature !== null) out.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) out.p = body.top_p;
  if (body.top_k !== undefined && body.top_k !== null) out.k = body.top_k;
  if (body.seed !== undefined && body.seed !== null) out.seed = body.seed;
  if (body.presence_penalty !== undefined && body.presence_penalty !== null) out.presence_penalty = body.presence_penalty;
  if (body.frequency_penalty !== undefined && body.frequency_penalty !== null) out.frequency_penalty = body.frequency_penalty;
  if (body.stop !== undefined && body.stop !== null) out.stop_sequences = Array.isArray(body.stop) ? body.stop : [body.stop];
  if (isObj(body.response_format)) {
    const rf = body.response_format;
    if (rf.type === 'json_object') out.response_format = { type: 'json_object' };
    else if (rf.type === 'json_schema' && isObj(rf.json_schema)) out.response_format = { type: 'json_object', json_schema: rf.json_schema.schema ?? {} };
    else if (rf.type !== 'text') throw unsupported(cx.lang, 'response_format.type', `${String(rf.type)} is not supported by Cohere`);
  }
  if (Array.isArray(body.tools) && body.tools.length) out.tools = body.tools;
  if (body.tool_choice !== undefined && body.tool_choice !== null && body.tool_choice !== 'auto') {
    if (body.tool_choice === 'required') out.tool_choice = 'REQUIRED';
    else if (body.tool_choice === 'none') out.tool_choice = 'NONE';
    else throw unsupported(cx.lang, 'tool_choice', 'Cohere can require a tool call, not a particular tool');
  }
  return out;
}
