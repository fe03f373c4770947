import { usesMaxCompletionTokens } from '../../billing/output-caps.js';
import { drop, isObj, unsupported } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';
import { inputMessages } from './items.js';
import { chatTools, toolTable, type ToolTable } from './tools.js';

/**
 * Responses request → OpenAI chat request (providers-international §9, "Mapping to Chat";
 * docs/providers.md "Conversion policy"). Mapped: input items, instructions, function and custom
 * tools, tool choice, sampling, reasoning effort, text format and verbosity, the prompt cache key.
 * Left out with a note: what has meaning only on OpenAI's Responses API (`include`, reasoning
 * summaries, built-in tools, truncation, service tier, unknown fields). Left out silently:
 * bookkeeping with no meaning upstream (store:false, metadata, client_metadata, stream_options,
 * safety_identifier). Refused: state kept by
 * OpenAI (`previous_response_id`, `conversation`, stored prompts, background runs) and a tool
 * choice forcing a built-in tool, since leaving those out would change the answer.
 */
type Msg = Record<string, unknown>;

/** Top-level fields read below. */
const READ = new Set([
  'model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'temperature', 'top_p', 'reasoning',
  'text', 'stream', 'user', 'include', 'prompt_cache_key', 'background', 'store', 'truncation',
]);
/** Bookkeeping with no meaning for another upstream (OpenAI's abuse-tracking id included). */
const SILENT = new Set(['metadata', 'client_metadata', 'stream_options', 'safety_identifier']);
/** OpenAI-held state: the request means something else without it. */
const STATEFUL = ['previous_response_id', 'conversation', 'prompt'];

function refuseStateful(body: Msg, cx: ConvertContext): void {
  for (const key of STATEFUL) {
    if (body[key] !== undefined && body[key] !== null) throw unsupported(cx.lang, key, 'cannot be sent to this channel (only OpenAI keeps Responses state)');
  }
  if (body.background === true) throw unsupported(cx.lang, 'background', 'background runs exist only on OpenAI');
}

function toolChoice(choice: unknown, table: ToolTable, cx: ConvertContext): unknown {
  if (choice === undefined || choice === null || choice === 'auto' || choice === 'none' || choice === 'required') return choice ?? undefined;
  if (isObj(choice) && (choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string') {
    const entry = table.entries.find((e) => e.name === choice.name);
    return { type: 'function', function: { name: entry?.chatName ?? choice.name } };
  }
  if (isObj(choice) && choice.type === 'allowed_tools' && (choice.mode === 'auto' || choice.mode === 'required')) {
    drop(cx, 'tool_choice.tools', 'the tool list is sent whole');
    return choice.mode;
  }
  throw unsupported(cx.lang, 'tool_choice', 'use auto, none, required, a function or a custom tool');
}

function responseFormat(text: unknown, out: Msg, cx: ConvertContext): void {
  if (!isObj(text)) return;
  for (const k of Object.keys(text)) if (k !== 'format' && k !== 'verbosity') drop(cx, `text.${k}`, 'no chat counterpart');
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

/** `reasoning.effort` → reasoning_effort; a requested summary or other reasoning settings are noted. */
function reasoning(r: unknown, out: Msg, cx: ConvertContext): void {
  if (!isObj(r)) return;
  if (typeof r.effort === 'string') out.reasoning_effort = r.effort;
  for (const k of Object.keys(r)) {
    if (k !== 'effort' && r[k] !== undefined && r[k] !== null) drop(cx, `reasoning.${k}`, 'chat returns reasoning text only where the upstream shows it');
  }
}

/** Fields left out: noted when they change something upstream, silent when they are bookkeeping. */
function noteLeftOut(body: Msg, cx: ConvertContext): void {
  for (const key of Object.keys(body)) if (!READ.has(key) && !SILENT.has(key) && !STATEFUL.includes(key)) drop(cx, key, 'no chat counterpart');
  if (Array.isArray(body.include) && body.include.length) drop(cx, 'include', 'extra output data exists only on OpenAI');
  if (body.store === true) drop(cx, 'store', 'only OpenAI stores responses');
  if (typeof body.truncation === 'string' && body.truncation !== 'disabled') drop(cx, 'truncation', 'only OpenAI truncates the conversation for you');
}

export function responsesToOpenAIRequest(body: Msg, cx: ConvertContext): Msg {
  refuseStateful(body, cx);
  noteLeftOut(body, cx);
  const table = toolTable(body, cx);
  const out: Msg = { model: cx.model, messages: inputMessages(body, table, cx) };
  // OpenAI's reasoning models refuse max_tokens and take max_completion_tokens.
  if (typeof body.max_output_tokens === 'number') out[usesMaxCompletionTokens(cx.model) ? 'max_completion_tokens' : 'max_tokens'] = body.max_output_tokens;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  reasoning(body.reasoning, out, cx);
  responseFormat(body.text, out, cx);
  if (cx.stream) out.stream = true;
  // The cache key: OpenAI chat routes by it, an Anthropic channel turns it into cache breakpoints.
  for (const k of ['user', 'prompt_cache_key'] as const) {
    if (typeof body[k] === 'string' && body[k]) out[k] = body[k];
  }
  const t = chatTools(table);
  if (t) {
    out.tools = t;
    const choice = toolChoice(body.tool_choice, table, cx);
    if (choice !== undefined) out.tool_choice = choice;
    if (typeof body.parallel_tool_calls === 'boolean') out.parallel_tool_calls = body.parallel_tool_calls;
  } else if (body.tool_choice === 'required' || (isObj(body.tool_choice) && body.tool_choice.type !== 'allowed_tools')) {
    throw unsupported(cx.lang, 'tool_choice', 'requires a tool call, but no tool of this request can be sent to this channel');
  }
  return out;
}
