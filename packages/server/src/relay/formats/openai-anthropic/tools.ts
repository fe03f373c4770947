import { isObj, unsupported } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';

/** OpenAI function tools → Anthropic tools (`parameters` → `input_schema`). */
export function tools(list: unknown, cx: ConvertContext): Array<Record<string, unknown>> | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw unsupported(cx.lang, 'tools', 'must be a list');
  if (list.length === 0) return undefined;
  return list.map((t, i) => {
    if (!isObj(t) || t.type !== 'function' || !isObj(t.function)) throw unsupported(cx.lang, `tools.${i}`, 'only function tools can be sent to Anthropic');
    const fn = t.function;
    const out: Record<string, unknown> = { name: String(fn.name ?? ''), input_schema: isObj(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } };
    if (typeof fn.description === 'string' && fn.description) out.description = fn.description;
    return out;
  });
}

/** `auto` → auto, `required` → any, `none` → none, a named function → tool; `parallel_tool_calls:false` → disable_parallel_tool_use. */
export function toolChoice(choice: unknown, parallel: unknown, cx: ConvertContext): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice === 'none') out = { type: 'none' };
  else if (isObj(choice) && isObj(choice.function) && typeof choice.function.name === 'string') out = { type: 'tool', name: choice.function.name };
  else if (choice !== undefined && choice !== null) throw unsupported(cx.lang, 'tool_choice', 'use auto, required, none or a named function');
  if (parallel === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}
