import { isObj, unsupported } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';

/**
 * Responses request → OpenAI chat request (providers-international §9, "Mapping to Chat"). State
 * kept by OpenAI (`previous_response_id`, stored items, background runs) and built-in tools exist
 * only on OpenAI's Responses endpoint and are refused with a 400 naming the field; account
 * features (store, metadata, service tier, prompt cache keys) are left out.
 */
const ACCOUNT_ONLY = new Set(['store', 'metadata', 'service_tier', 'prompt_cache_key', 'safety_identifier', 'stream_options', 'truncation']);
const MAPPED = new Set(['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'temperature', 'top_p', 'reasoning', 'text', 'stream', 'user', 'include']);

type Msg = Record<string, unknown>;

function contentParts(content: unknown, cx: ConvertContext, where: string): string | Msg[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw unsupported(cx.lang, where, 'must be a string or a list of content parts');
  const parts = content.map((raw, j): Msg => {
    const p = isObj(raw) ? raw : {};
    const at = `${where}.${j}`;
    switch (p.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: String(p.text ?? '') };
      case 'refusal':
        return { type: 'text', text: String(p.refusal ?? '') };
      case 'input_image': {
        if (typeof p.image_url !== 'string') throw unsupported(cx.lang, at, 'images must come as image_url (file ids live in OpenAI storage)');
        const image: Msg = { url: p.image_url };
        if (typeof p.detail === 'string') image.detail = p.detail;
        return { type: 'image_url', image_url: image };
      }
      case 'input_file': {
        if (typeof p.file_data !== 'string') throw unsupported(cx.lang, at, 'files must come inline as file_data');
        return { type: 'file', file: { filename: typeof p.filename === 'string' ? p.filename : 'file', file_data: p.file_data } };
      }
      default:
        throw unsupported(cx.lang, `${at}.type`, `content part "${String(p.type)}" cannot be sent to this channel`);
    }
  });
  return parts.every((p) => p.type === 'text') ? parts.map((p) => String(p.text)).join('') : parts;
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return JSON.stringify(output ?? '');
  return output.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

function messages(body: Record<string, unknown>, cx: ConvertContext): Msg[] {
  const out: Msg[] = [];
  if (typeof body.instructions === 'string' && body.instructions) out.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') {
    out.push({ role: 'user', content: body.input });
    return out;
  }
  if (!Array.isArray(body.input)) throw unsupported(cx.lang, 'input', 'must be a string or a list of items');
  body.input.forEach((raw, i) => {
    const item = isObj(raw) ? raw : {};
    const where = `input.${i}`;
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message') {
      if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role))) throw unsupported(cx.lang, `${where}.role`, 'use user, assistant, system or developer');
      out.push({ role: item.role, content: contentParts(item.content, cx, `${where}.content`) });
    } else if (type === 'function_call') {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: String(item.arguments ?? '') } };
      // Calls of one turn go into one assistant message, after its text if it has any.
      const prev = out.at(-1);
      if (prev && prev.role === 'assistant') prev.tool_calls = [...(Array.isArray(prev.tool_calls) ? prev.tool_calls : []), call];
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      out.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) });
    } else if (type !== 'reasoning') {
      // Earlier reasoning is not input to the next turn; any other item lives in OpenAI's storage or tools.
      throw unsupported(cx.lang, `${where}.type`, `item "${String(type)}" cannot be sent to this channel`);
    }
  });
  return out;
}

function tools(list: unknown, cx: ConvertContext): Msg[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((raw, i) => {
    const t = isObj(raw) ? raw : {};
    if (t.type !== 'function') throw unsupported(cx.lang, `tools.${i}.type`, `built-in tool "${String(t.type)}" runs only on OpenAI's Responses API`);
    const fn: Msg = { name: t.name, parameters: isObj(t.parameters) ? t.parameters : { type: 'object', properties: {} } };
    if (typeof t.description === 'string') fn.description = t.description;
    if (typeof t.strict === 'boolean') fn.strict = t.strict;
    return { type: 'function', function: fn };
  });
}

function toolChoice(choice: unknown, cx: ConvertContext): unknown {
  if (choice === undefined || choice === null || choice === 'auto' || choice === 'none' || choice === 'required') return choice ?? undefined;
  if (isObj(choice) && choice.type === 'function' && typeof choice.name === 'string') return { type: 'function', function: { name: choice.name } };
  throw unsupported(cx.lang, 'tool_choice', 'use auto, none, required or a function');
}

function responseFormat(text: unknown, out: Record<string, unknown>, cx: ConvertContext): void {
  if (!isObj(text)) return;
  for (const k of Object.keys(text)) if (k !== 'format' && k !== 'verbosity') throw unsupported(cx.lang, `text.${k}`, 'cannot be sent to this channel');
  if (typeof text.verbosity === 'string') out.verbosity = text.verbosity;
  const f = text.format;
  if (!isObj(f) || f.type === 'text') return;
  if (f.type === 'json_object') out.response_format = { type: 'json_object' };
  else if (f.type === 'json_schema') {
    const schema: Msg = { name: f.name ?? 'response', schema: f.schema };
    if (typeof f.strict === 'boolean') schema.strict = f.strict;
    if (typeof f.description === 'string') schema.description = f.description;
    out.response_format = { type: 'json_schema', json_schema: schema };
  } else throw unsupported(cx.lang, 'text.format.type', 'use text, json_object or json_schema');
}

export function responsesToOpenAIRequest(body: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  for (const key of Object.keys(body)) {
    if (!MAPPED.has(key) && !ACCOUNT_ONLY.has(key)) throw unsupported(cx.lang, key, 'cannot be sent to this channel (only OpenAI keeps Responses state)');
  }
  if (Array.isArray(body.include) && body.include.length) throw unsupported(cx.lang, 'include', 'extra output data exists only on OpenAI');
  const out: Record<string, unknown> = { model: cx.model, messages: messages(body, cx) };
  if (typeof body.max_output_tokens === 'number') out.max_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (isObj(body.reasoning) && typeof body.reasoning.effort === 'string') out.reasoning_effort = body.reasoning.effort;
  responseFormat(body.text, out, cx);
  if (cx.stream) out.stream = true;
  if (typeof body.user === 'string' && body.user) out.user = body.user;
  const t = tools(body.tools, cx);
  if (t) {
    out.tools = t;
    const choice = toolChoice(body.tool_choice, cx);
    if (choice !== undefined) out.tool_choice = choice;
    if (typeof body.parallel_tool_calls === 'boolean') out.parallel_tool_calls = body.parallel_tool_calls;
  }
  return out;
}
