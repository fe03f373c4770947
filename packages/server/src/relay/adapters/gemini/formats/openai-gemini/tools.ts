import { drop, isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';

/**
 * JSON Schema keywords Gemini's Schema (an OpenAPI subset) does not take (providers-international
 * §2.2, §2.5): left out of function parameters and response schemas. Property names are data and
 * are never touched; `format` stays only where Gemini knows it (`enum`, `date-time`).
 */
const DROPPED = new Set(['$schema', '$id', 'additionalProperties', 'default', 'exclusiveMinimum', 'exclusiveMaximum', 'title', 'strict', 'examples', '$comment']);

export function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema);
  if (!isObj(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (DROPPED.has(k)) continue;
    if (k === 'format' && v !== 'enum' && v !== 'date-time') continue;
    if (k === 'properties' && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, geminiSchema(s)]));
    else out[k] = isObj(v) || Array.isArray(v) ? geminiSchema(v) : v;
  }
  return out;
}

/** OpenAI function tools → one `functionDeclarations` list; other tool kinds cannot be sent. */
export function geminiTools(list: unknown, cx: ConvertContext): Array<Record<string, unknown>> | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw unsupported(cx.lang, 'tools', 'must be a list');
  if (list.length === 0) return undefined;
  const decls = list.map((t, i) => {
    if (!isObj(t) || t.type !== 'function' || !isObj(t.function)) throw unsupported(cx.lang, `tools.${i}`, 'only function tools can be sent to Gemini');
    const fn = t.function;
    const out: Record<string, unknown> = { name: String(fn.name ?? '') };
    if (typeof fn.description === 'string' && fn.description) out.description = fn.description;
    const params = isObj(fn.parameters) ? geminiSchema(fn.parameters) : undefined;
    // A function without arguments has no parameters (Gemini refuses an object schema with no properties).
    if (isObj(params) && !(params.type === 'object' && (!isObj(params.properties) || Object.keys(params.properties).length === 0))) out.parameters = params;
    return out;
  });
  return [{ functionDeclarations: decls }];
}

/** `auto` → AUTO, `none` → NONE, `required` → ANY, a named function → ANY restricted to it. */
export function geminiToolConfig(choice: unknown, parallel: unknown, cx: ConvertContext): Record<string, unknown> | undefined {
  // A hint (Codex sends it on every turn): Gemini cannot be told to call one function at a time, and
  // clients take the calls of a turn one by one anyway, so it is left out with a note.
  if (parallel === false) drop(cx, 'parallel_tool_calls', 'Gemini cannot be told to call one function at a time');
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (isObj(choice) && isObj(choice.function) && typeof choice.function.name === 'string') {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  throw unsupported(cx.lang, 'tool_choice', 'use auto, required, none or a named function');
}
