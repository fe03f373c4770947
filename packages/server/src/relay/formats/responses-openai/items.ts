import { drop, isObj, unsupported } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';
import { chatNameOf, type ToolTable } from './tools.js';

/**
 * Responses `input` items → chat messages (docs/providers.md "Conversion policy", Responses →
 * OpenAI chat). Messages, function and custom tool calls and their outputs map; earlier reasoning
 * is left out silently (encrypted, and not input to another model); tool declarations
 * (`additional_tools`) went into the tool list; items of built-in tools and of OpenAI's storage
 * are left out with a note, except a reference to a stored item (its content is only on OpenAI).
 */
type Msg = Record<string, unknown>;

function contentParts(content: unknown, cx: ConvertContext, where: string): string | Msg[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw unsupported(cx.lang, where, 'must be a string or a list of content parts');
  const parts: Msg[] = [];
  content.forEach((raw, j) => {
    const p = isObj(raw) ? raw : {};
    const at = `${where}.${j}`;
    switch (p.type) {
      case 'input_text':
      case 'output_text':
        parts.push({ type: 'text', text: String(p.text ?? '') });
        return;
      case 'refusal':
        parts.push({ type: 'text', text: String(p.refusal ?? '') });
        return;
      case 'input_image': {
        if (typeof p.image_url !== 'string') throw unsupported(cx.lang, at, 'images must come as image_url (file ids live in OpenAI storage)');
        const image: Msg = { url: p.image_url };
        if (typeof p.detail === 'string') image.detail = p.detail;
        parts.push({ type: 'image_url', image_url: image });
        return;
      }
      case 'input_file': {
        if (typeof p.file_data !== 'string') throw unsupported(cx.lang, at, 'files must come inline as file_data');
        parts.push({ type: 'file', file: { filename: typeof p.filename === 'string' ? p.filename : 'file', file_data: p.file_data } });
        return;
      }
      default:
        drop(cx, `${at}(${String(p.type)})`, 'no chat counterpart');
    }
  });
  return parts.every((p) => p.type === 'text') ? parts.map((p) => String(p.text)).join('') : parts;
}

/** A tool output (a string or a list of content parts) as the text of a `tool` message. */
function outputText(output: unknown, cx: ConvertContext, where: string): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return JSON.stringify(output ?? '');
  return output
    .map((p, k) => {
      if (isObj(p) && typeof p.text === 'string') return p.text;
      drop(cx, `${where}.${k}(${isObj(p) ? String(p.type) : typeof p})`, 'a chat tool message carries text only');
      return '';
    })
    .join('');
}

/** Adds a call to the assistant message of its turn (after its text, if it has any). */
function pushCall(out: Msg[], call: Msg): void {
  const prev = out.at(-1);
  if (prev && prev.role === 'assistant') prev.tool_calls = [...(Array.isArray(prev.tool_calls) ? prev.tool_calls : []), call];
  else out.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** Items that only declare or load tools: their tools are in the tool table already. */
const TOOL_DECLARATIONS = new Set(['additional_tools', 'tool_search_output']);

export function inputMessages(body: Msg, table: ToolTable, cx: ConvertContext): Msg[] {
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
    switch (type) {
      case 'message':
        if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role))) throw unsupported(cx.lang, `${where}.role`, 'use user, assistant, system or developer');
        // `developer` is OpenAI's newer name for `system`; every chat upstream knows `system`.
        out.push({ role: item.role === 'developer' ? 'system' : item.role, content: contentParts(item.content, cx, `${where}.content`) });
        return;
      case 'function_call':
        pushCall(out, { id: item.call_id, type: 'function', function: { name: chatNameOf(table, item.name, item.namespace), arguments: String(item.arguments ?? '') } });
        return;
      case 'custom_tool_call':
        // A custom tool is a function with one string parameter upstream (tools.ts).
        pushCall(out, { id: item.call_id, type: 'function', function: { name: chatNameOf(table, item.name, item.namespace), arguments: JSON.stringify({ input: String(item.input ?? '') }) } });
        return;
      case 'function_call_output':
      case 'custom_tool_call_output':
        out.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output, cx, `${where}.output`) });
        return;
      case 'reasoning':
        // Earlier reasoning (summaries, encrypted content) is not input to the next turn.
        return;
      case 'item_reference':
        throw unsupported(cx.lang, `${where}.type`, 'a stored item exists only in OpenAI storage');
      default:
        if (!TOOL_DECLARATIONS.has(String(type))) drop(cx, `${where}(${String(type)})`, "built-in tool items and OpenAI state have no chat counterpart");
    }
  });
  return out;
}
