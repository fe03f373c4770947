import { isObj, plainText, unsupported } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';

/**
 * Anthropic Messages request → OpenAI chat request (providers-international §1.6, the reverse of
 * §1.4). Prompt-cache markers and echoed thinking blocks have no OpenAI counterpart and are left
 * out (OpenAI caches prompts by itself; earlier reasoning is not input); anything else OpenAI chat
 * cannot express is refused with a 400 naming the field.
 */
const MAPPED = new Set(['model', 'messages', 'system', 'max_tokens', 'metadata', 'stop_sequences', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'thinking', 'service_tier']);

function imagePart(b: Record<string, unknown>, cx: ConvertContext, where: string): Record<string, unknown> {
  const s = isObj(b.source) ? b.source : {};
  if (s.type === 'base64' && typeof s.media_type === 'string' && typeof s.data === 'string') {
    return { type: 'image_url', image_url: { url: `data:${s.media_type};base64,${s.data}` } };
  }
  if (s.type === 'url' && typeof s.url === 'string') return { type: 'image_url', image_url: { url: s.url } };
  throw unsupported(cx.lang, `${where}.source`, 'only base64 and url image sources can be sent to this channel');
}

function documentPart(b: Record<string, unknown>, cx: ConvertContext, where: string): Record<string, unknown> {
  const s = isObj(b.source) ? b.source : {};
  if (s.type === 'base64' && s.media_type === 'application/pdf' && typeof s.data === 'string') {
    return { type: 'file', file: { filename: typeof b.title === 'string' ? b.title : 'document.pdf', file_data: `data:application/pdf;base64,${s.data}` } };
  }
  throw unsupported(cx.lang, `${where}.source`, 'only base64 PDF documents can be sent to this channel');
}

function toolResultText(b: Record<string, unknown>, cx: ConvertContext, where: string): string {
  if (typeof b.content === 'string' || b.content === undefined) return String(b.content ?? '');
  if (!Array.isArray(b.content)) throw unsupported(cx.lang, `${where}.content`, 'must be a string or text blocks');
  b.content.forEach((c, k) => {
    if (!isObj(c) || c.type !== 'text') throw unsupported(cx.lang, `${where}.content.${k}`, 'only text tool results can be sent to this channel');
  });
  return plainText(b.content);
}

function userMessages(content: unknown, cx: ConvertContext, where: string): Array<Record<string, unknown>> {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const tools: Array<Record<string, unknown>> = [];
  const parts: Array<Record<string, unknown>> = [];
  (Array.isArray(content) ? content : []).forEach((raw, j) => {
    const b = isObj(raw) ? raw : {};
    const at = `${where}.${j}`;
    switch (b.type) {
      case 'text':
        parts.push({ type: 'text', text: String(b.text ?? '') });
        return;
      case 'image':
        parts.push(imagePart(b, cx, at));
        return;
      case 'document':
        parts.push(documentPart(b, cx, at));
        return;
      case 'tool_result':
        // OpenAI wants each result as its own `tool` message, right after the assistant's calls.
        tools.push({ role: 'tool', tool_call_id: b.tool_use_id, content: toolResultText(b, cx, at) });
        return;
      default:
        throw unsupported(cx.lang, `${at}.type`, `content block "${String(b.type)}" cannot be sent to this channel`);
    }
  });
  return parts.length ? [...tools, { role: 'user', content: parts }] : tools;
}

function assistantMessage(content: unknown, cx: ConvertContext, where: string): Record<string, unknown> {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  const calls: Array<Record<string, unknown>> = [];
  (Array.isArray(content) ? content : []).forEach((raw, j) => {
    const b = isObj(raw) ? raw : {};
    if (b.type === 'text') text += String(b.text ?? '');
    else if (b.type === 'tool_use') calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
    else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') throw unsupported(cx.lang, `${where}.${j}.type`, `content block "${String(b.type)}" cannot be sent to this channel`);
  });
  const msg: Record<string, unknown> = { role: 'assistant', content: text || null };
  if (calls.length) msg.tool_calls = calls;
  return msg;
}

function tools(list: unknown, cx: ConvertContext): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((raw, i) => {
    const t = isObj(raw) ? raw : {};
    // Server tools (web search, code execution, …) carry a versioned type: only Anthropic runs them.
    if (t.type !== undefined && t.type !== 'custom') throw unsupported(cx.lang, `tools.${i}.type`, `server tool "${String(t.type)}" runs only on Anthropic`);
    const fn: Record<string, unknown> = { name: t.name, parameters: isObj(t.input_schema) ? t.input_schema : { type: 'object', properties: {} } };
    if (typeof t.description === 'string') fn.description = t.description;
    return { type: 'function', function: fn };
  });
}

function toolChoice(choice: unknown, out: Record<string, unknown>): void {
  if (!isObj(choice)) return;
  if (choice.type === 'auto') out.tool_choice = 'auto';
  else if (choice.type === 'any') out.tool_choice = 'required';
  else if (choice.type === 'none') out.tool_choice = 'none';
  else if (choice.type === 'tool') out.tool_choice = { type: 'function', function: { name: choice.name } };
  if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
}

/** Thinking budget → reasoning_effort, by the same presets the other direction uses. */
function effortOf(budget: number): string {
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

export function anthropicToOpenAIRequest(body: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  for (const key of Object.keys(body)) if (!MAPPED.has(key)) throw unsupported(cx.lang, key, 'cannot be sent to an OpenAI-format channel');
  const messages: Array<Record<string, unknown>> = [];
  const system = plainText(body.system);
  if (system) messages.push({ role: 'system', content: system });
  // validate.ts has checked a caller's body; a converter still takes any JSON without throwing.
  (Array.isArray(body.messages) ? body.messages : []).forEach((raw: unknown, i) => {
    const m = isObj(raw) ? raw : {};
    if (m.role === 'assistant') messages.push(assistantMessage(m.content, cx, `messages.${i}.content`));
    else messages.push(...userMessages(m.content, cx, `messages.${i}.content`));
  });
  const out: Record<string, unknown> = { model: cx.model, messages, max_tokens: body.max_tokens };
  if (body.temperature !== undefined) out.temperature = body.temperature;
  if (body.top_p !== undefined) out.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length) out.stop = body.stop_sequences;
  if (body.stream === true) out.stream = true;
  const user = isObj(body.metadata) ? body.metadata.user_id : undefined;
  if (typeof user === 'string' && user) out.user = user;
  const t = tools(body.tools, cx);
  if (t) {
    out.tools = t;
    toolChoice(body.tool_choice, out);
  }
  if (isObj(body.thinking) && body.thinking.type === 'enabled') {
    const budget = typeof body.thinking.budget_tokens === 'number' ? body.thinking.budget_tokens : 0;
    out.reasoning_effort = effortOf(budget);
  }
  return out;
}
