import { drop, isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';

/** OpenAI function tools → Anthropic tools (`parameters` → `input_schema`). */
export function tools(list: unknown, cx: ConvertContext): Array<Record<string, unknown>> | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw unsupported(cx.lang, 'tools', 'must be a list');
  if (list.length === 0) return undefined;
  const out: Array<Record<string, unknown>> = [];
  list.forEach((t, i) => {
    if (isObj(t) && t.type !== 'function' && typeof t.type === 'string') {
      // OpenAI's own tools (custom grammar tools and the like) have no Anthropic counterpart.
      drop(cx, `tools.${i}(${t.type})`, 'only function tools can be sent to Anthropic');
      return;
    }
    if (!isObj(t) || !isObj(t.function)) throw unsupported(cx.lang, `tools.${i}`, 'only function tools can be sent to Anthropic');
    const fn = t.function;
    const tool: Record<string, unknown> = { name: String(fn.name ?? ''), input_schema: isObj(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } };
    if (typeof fn.description === 'string' && fn.description) tool.description = fn.description;
    out.push(tool);
  });
  return out.length ? out : undefined;
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

const ephemeral = () => ({ type: 'ephemeral' });

/** The last block of a turn's content, made a block list when it was a string. */
function lastBlock(turn: Record<string, unknown>): Record<string, unknown> | undefined {
  if (typeof turn.content === 'string') turn.content = [{ type: 'text', text: turn.content }];
  const blocks = Array.isArray(turn.content) ? turn.content : [];
  const last: unknown = blocks.at(-1);
  return isObj(last) ? last : undefined;
}

/**
 * Anthropic prompt-cache breakpoints for a caller that asked for caching (`prompt_cache_key`):
 * the last tool, the last system block and the last block of the final turn (3 of the 4
 * breakpoints Anthropic allows). Tools and system are the stable prefix of every turn; the final
 * turn's breakpoint lets the next turn read the whole conversation so far from the cache.
 */
export function cacheBreakpoints(out: Record<string, unknown>): void {
  const toolList = Array.isArray(out.tools) ? out.tools : [];
  const lastTool: unknown = toolList.at(-1);
  if (isObj(lastTool)) lastTool.cache_control = ephemeral();
  const system = Array.isArray(out.system) ? out.system : [];
  const lastSystem: unknown = system.at(-1);
  if (isObj(lastSystem)) lastSystem.cache_control = ephemeral();
  const turns = Array.isArray(out.messages) ? out.messages : [];
  const lastTurn: unknown = turns.at(-1);
  const block = isObj(lastTurn) ? lastBlock(lastTurn) : undefined;
  // Empty text blocks cannot carry a breakpoint.
  if (block && !(block.type === 'text' && !block.text)) block.cache_control = ephemeral();
}
