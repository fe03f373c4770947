import { usesMaxCompletionTokens } from '../../../../billing/output-caps.js';
import { drop, isObj, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';
import { assistantMessage, noteCacheControl, systemMessage, userMessages } from './content.js';

/**
 * Anthropic Messages request → OpenAI chat request (providers-international §1.6, the reverse of
 * §1.4; docs/providers.md "Conversion policy"). Fields with an OpenAI counterpart are mapped;
 * hints and Anthropic-only features (context management, MCP servers, containers, server tools,
 * cache markers) are left out with a note (`cx.dropped`); a request is refused only where leaving
 * something out would change what the caller asked for (a forced server tool).
 */
type Msg = Record<string, unknown>;

/** Top-level fields read below; every other one is left out with a note. */
const READ = new Set(['model', 'messages', 'system', 'max_tokens', 'metadata', 'stop_sequences', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'thinking', 'output_config']);

/** Anthropic effort → OpenAI reasoning_effort (OpenAI's top level is xhigh). */
const EFFORT: Record<string, string> = { low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'xhigh' };

/** Thinking budget → reasoning_effort, by the same presets the other direction uses. */
function effortOf(budget: number): string {
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

/** The tool a `tool_choice` forces by name, if any. */
const forcedName = (choice: unknown) => (isObj(choice) && choice.type === 'tool' && typeof choice.name === 'string' ? choice.name : undefined);

/**
 * Client tools → function tools. Server tools (a versioned `type`: web search, bash, text editor,
 * code execution, computer use, …) run only on Anthropic: left out with a note, unless
 * `tool_choice` forces that very tool (then the request is refused: the model would be told to
 * call a tool it does not have).
 */
function tools(list: unknown, choice: unknown, cx: ConvertContext): Msg[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const forced = forcedName(choice);
  const out: Msg[] = [];
  list.forEach((raw, i) => {
    const t = isObj(raw) ? raw : {};
    noteCacheControl(t, cx);
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      if (forced !== undefined && forced === t.name) throw unsupported(cx.lang, 'tool_choice', `forces server tool "${String(t.type)}", which runs only on Anthropic`);
      drop(cx, `tools.${i}(${String(t.type)})`, 'server tools run only on Anthropic');
      return;
    }
    const fn: Msg = { name: t.name, parameters: isObj(t.input_schema) ? t.input_schema : { type: 'object', properties: {} } };
    if (typeof t.description === 'string') fn.description = t.description;
    if (typeof t.strict === 'boolean') fn.strict = t.strict;
    // Deferred loading (tool search) and examples are Anthropic's context savers: the tool itself is sent.
    if (t.defer_loading !== undefined) drop(cx, 'tools.defer_loading', 'OpenAI chat loads every tool up front');
    if (t.input_examples !== undefined) drop(cx, 'tools.input_examples', 'no OpenAI counterpart');
    out.push({ type: 'function', function: fn });
  });
  return out.length ? out : undefined;
}

function toolChoice(choice: unknown, out: Msg): void {
  if (!isObj(choice)) return;
  if (choice.type === 'auto') out.tool_choice = 'auto';
  else if (choice.type === 'any') out.tool_choice = 'required';
  else if (choice.type === 'none') out.tool_choice = 'none';
  else if (choice.type === 'tool') out.tool_choice = { type: 'function', function: { name: choice.name } };
  if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
}

/**
 * `thinking` and `output_config.effort` → reasoning_effort: enabled thinking by its budget (an
 * effort, when given, wins), adaptive thinking by the effort or `medium`. Without thinking the
 * effort is left out with a note (a non-reasoning OpenAI model refuses reasoning_effort).
 */
function reasoning(body: Msg, out: Msg, cx: ConvertContext): void {
  const oc = isObj(body.output_config) ? body.output_config : {};
  const effort = typeof oc.effort === 'string' ? EFFORT[oc.effort] : undefined;
  if (oc.effort !== undefined && effort === undefined) drop(cx, 'output_config.effort', 'unknown effort');
  const t = isObj(body.thinking) ? body.thinking : undefined;
  if (t?.type === 'enabled') {
    const budget = typeof t.budget_tokens === 'number' ? t.budget_tokens : 0;
    out.reasoning_effort = effort ?? effortOf(budget);
  } else if (t?.type === 'adaptive') out.reasoning_effort = effort ?? 'medium';
  else if (effort !== undefined) drop(cx, 'output_config.effort', 'reasoning is off');
  if (isObj(oc.format)) {
    if (oc.format.type === 'json_schema' && isObj(oc.format.schema)) out.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: oc.format.schema, strict: true } };
    else drop(cx, 'output_config.format', 'only json_schema formats map to OpenAI');
  }
  for (const k of Object.keys(oc)) if (k !== 'effort' && k !== 'format') drop(cx, `output_config.${k}`, 'no OpenAI counterpart');
}

export function anthropicToOpenAIRequest(body: Msg, cx: ConvertContext): Msg {
  for (const key of Object.keys(body)) if (!READ.has(key)) drop(cx, key, 'no OpenAI chat counterpart');
  const messages: Msg[] = [];
  if (Array.isArray(body.system)) body.system.forEach((b) => isObj(b) && noteCacheControl(b, cx));
  const system = plainText(body.system);
  if (system) messages.push({ role: 'system', content: system });
  // validate.ts has checked a caller's body; a converter still takes any JSON without throwing.
  (Array.isArray(body.messages) ? body.messages : []).forEach((raw: unknown, i) => {
    const m = isObj(raw) ? raw : {};
    const where = `messages.${i}`;
    if (m.role === 'assistant') messages.push(assistantMessage(m.content, cx, `${where}.content`));
    else if (m.role === 'system') {
      // A system message inside the conversation stays where it is (OpenAI takes system turns anywhere).
      const sys = systemMessage(m, cx, where);
      if (sys) messages.push(sys);
    } else messages.push(...userMessages(m.content, cx, `${where}.content`));
  });
  const out: Msg = { model: cx.model, messages };
  // OpenAI's reasoning models refuse max_tokens and take max_completion_tokens.
  out[usesMaxCompletionTokens(cx.model) ? 'max_completion_tokens' : 'max_tokens'] = body.max_tokens;
  if (body.temperature !== undefined) out.temperature = body.temperature;
  if (body.top_p !== undefined) out.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length) out.stop = body.stop_sequences;
  if (body.stream === true) out.stream = true;
  const user = isObj(body.metadata) ? body.metadata.user_id : undefined;
  if (typeof user === 'string' && user) out.user = user;
  const t = tools(body.tools, body.tool_choice, cx);
  if (t) {
    out.tools = t;
    toolChoice(body.tool_choice, out);
  } else if (isObj(body.tool_choice) && (body.tool_choice.type === 'any' || body.tool_choice.type === 'tool')) {
    throw unsupported(cx.lang, 'tool_choice', 'requires a tool call, but no tool of this request can be sent to an OpenAI-format channel');
  }
  reasoning(body, out, cx);
  return out;
}
