import { outputCap } from '../../../../billing/output-caps.js';
import { drop, isObj, parseDataUrl, plainText, refuseMeaningfulChatFields, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';
import { cacheBreakpoints, toolChoice, tools } from './tools.js';

/**
 * OpenAI chat request → Anthropic Messages request (providers-international §1.4; docs/providers.md
 * "Conversion policy"). What would change the answer if left out (n > 1, logprobs, penalties, JSON
 * mode) is refused with a 400 naming the field; hints with no Anthropic counterpart (verbosity,
 * seed, service tier, unknown fields) are left out with a note (`cx.dropped`); OpenAI-account
 * bookkeeping with no meaning upstream (store, metadata, stream_options) is left out silently.
 * A `prompt_cache_key` asks for Anthropic prompt caching: cache breakpoints on the stable prefix.
 */
const SILENT = new Set(['store', 'metadata', 'stream_options', 'prompt_cache_key', 'safety_identifier']);
const MAPPED = new Set([
  'model', 'messages', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'stream', 'tools',
  'tool_choice', 'parallel_tool_calls', 'user', 'reasoning_effort', 'thinking', 'n', 'logprobs', 'frequency_penalty',
  'presence_penalty', 'response_format', 'logit_bias',
]);

/** Budget tokens per `reasoning_effort` (Anthropic's minimum budget is 1024). */
const EFFORT_BUDGET: Record<string, number> = { minimal: 1024, low: 1024, medium: 4096, high: 16384, xhigh: 32768 };
const MIN_BUDGET = 1024;

function refuseInexpressible(body: Record<string, unknown>, cx: ConvertContext): void {
  const { lang } = cx;
  refuseMeaningfulChatFields(body, cx, 'Anthropic');
  for (const key of Object.keys(body)) if (!MAPPED.has(key) && !SILENT.has(key)) drop(cx, key, 'no Anthropic Messages counterpart');
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw unsupported(lang, 'n', 'Anthropic returns one choice per request');
  if (body.logprobs === true) throw unsupported(lang, 'logprobs', 'Anthropic does not return log probabilities');
  for (const k of ['frequency_penalty', 'presence_penalty'] as const) {
    if (body[k] !== undefined && body[k] !== null && body[k] !== 0) throw unsupported(lang, k, 'Anthropic has no penalties');
  }
  if (isObj(body.logit_bias) && Object.keys(body.logit_bias).length > 0) throw unsupported(lang, 'logit_bias', 'Anthropic has no logit bias');
  if (body.response_format !== undefined && body.response_format !== null && !(isObj(body.response_format) && body.response_format.type === 'text')) {
    throw unsupported(lang, 'response_format', 'Anthropic has no JSON mode');
  }
  if (typeof body.temperature === 'number' && body.temperature > 1) throw unsupported(lang, 'temperature', 'Anthropic takes 0 to 1');
}

function imageBlock(part: Record<string, unknown>, cx: ConvertContext, where: string): Record<string, unknown> {
  const iu = part.image_url;
  const url = typeof iu === 'string' ? iu : isObj(iu) && typeof iu.url === 'string' ? iu.url : '';
  const data = parseDataUrl(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw unsupported(cx.lang, where, 'an image must be a base64 data URL or an http(s) URL');
}

function fileBlock(part: Record<string, unknown>, cx: ConvertContext, where: string): Record<string, unknown> {
  const f = isObj(part.file) ? part.file : {};
  const data = typeof f.file_data === 'string' ? parseDataUrl(f.file_data) : undefined;
  if (!data || data.mediaType !== 'application/pdf') throw unsupported(cx.lang, where, 'only base64 PDF files can be sent to Anthropic');
  return { type: 'document', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
}

function userContent(content: unknown, cx: ConvertContext, where: string): string | Array<Record<string, unknown>> {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p, j) => {
    const at = `${where}.${j}`;
    if (!isObj(p)) throw unsupported(cx.lang, at, 'a content part must be an object');
    if (p.type === 'text') return { type: 'text', text: String(p.text ?? '') };
    if (p.type === 'image_url') return imageBlock(p, cx, at);
    if (p.type === 'file') return fileBlock(p, cx, at);
    throw unsupported(cx.lang, at, `content part "${String(p.type)}" is not supported by Anthropic`);
  });
}

function toolUse(call: unknown, cx: ConvertContext, where: string): Record<string, unknown> {
  const c = isObj(call) ? call : {};
  const fn = isObj(c.function) ? c.function : {};
  let input: unknown = {};
  const args = typeof fn.arguments === 'string' ? fn.arguments.trim() : '';
  if (args) {
    try {
      input = JSON.parse(args);
    } catch {
      throw unsupported(cx.lang, `${where}.function.arguments`, 'tool call arguments must be a JSON object');
    }
  }
  if (!isObj(input)) throw unsupported(cx.lang, `${where}.function.arguments`, 'tool call arguments must be a JSON object');
  return { type: 'tool_use', id: String(c.id ?? ''), name: String(fn.name ?? ''), input };
}

interface Turn {
  role: 'user' | 'assistant';
  content: string | Array<Record<string, unknown>>;
}

/** A text block added to the last user turn (or a new one after an assistant turn). */
function userNote(turns: Turn[], text: string): void {
  const prev = turns.at(-1);
  if (prev?.role === 'user') {
    prev.content = typeof prev.content === 'string' ? [{ type: 'text', text: prev.content }, { type: 'text', text }] : [...prev.content, { type: 'text', text }];
  } else turns.push({ role: 'user', content: text });
}

function messages(list: unknown[], cx: ConvertContext): { system: Array<Record<string, unknown>>; turns: Turn[] } {
  const system: Array<Record<string, unknown>> = [];
  const turns: Turn[] = [];
  list.forEach((raw, i) => {
    const m = isObj(raw) ? raw : {};
    const where = `messages.${i}`;
    switch (m.role) {
      case 'system':
      case 'developer': {
        const text = plainText(m.content);
        if (!text) return;
        // Leading instructions are Messages' `system`; a later one stays at its place in the
        // conversation as a user-role note (appending it to `system` would move it and change the
        // cached prefix of every later turn).
        if (turns.length === 0) system.push({ type: 'text', text });
        else userNote(turns, `[${String(m.role)}] ${text}`);
        return;
      }
      case 'user':
        turns.push({ role: 'user', content: userContent(m.content, cx, `${where}.content`) });
        return;
      case 'assistant': {
        const blocks: Array<Record<string, unknown>> = [];
        const text = plainText(m.content);
        if (text) blocks.push({ type: 'text', text });
        if (Array.isArray(m.tool_calls)) m.tool_calls.forEach((c, j) => blocks.push(toolUse(c, cx, `${where}.tool_calls.${j}`)));
        turns.push({ role: 'assistant', content: blocks.length === 1 && blocks[0]!.type === 'text' ? text : blocks });
        return;
      }
      case 'tool': {
        const result = { type: 'tool_result', tool_use_id: String(m.tool_call_id ?? ''), content: plainText(m.content) };
        // Results of one assistant turn's calls go back together in one user turn.
        const prev = turns.at(-1);
        if (prev && prev.role === 'user' && Array.isArray(prev.content) && prev.content.every((b) => b.type === 'tool_result')) prev.content.push(result);
        else turns.push({ role: 'user', content: [result] });
        return;
      }
      default:
        throw unsupported(cx.lang, `${where}.role`, `role "${String(m.role)}" is not supported by Anthropic`);
    }
  });
  return { system, turns };
}

function thinking(body: Record<string, unknown>, maxTokens: number, cx: ConvertContext): Record<string, unknown> | undefined {
  if (isObj(body.thinking)) return body.thinking;
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === null || effort === 'none') return undefined;
  const preset = typeof effort === 'string' ? EFFORT_BUDGET[effort] : undefined;
  if (preset === undefined) throw unsupported(cx.lang, 'reasoning_effort', 'use minimal, low, medium, high or xhigh');
  // The budget must stay below max_tokens, so the reply keeps room after the thinking.
  const budget = Math.min(preset, maxTokens - 1);
  if (budget < MIN_BUDGET) throw unsupported(cx.lang, 'max_tokens', `reasoning on Anthropic needs max_tokens above ${MIN_BUDGET}`);
  return { type: 'enabled', budget_tokens: budget };
}

/**
 * Whether the conversation's last assistant turn called tools: with thinking enabled, Anthropic
 * requires that turn to start with its signed thinking block (a tool-use loop continues the same
 * reasoning), which an OpenAI-format history cannot carry — such a request would be refused.
 */
function inToolLoopWithoutThinking(turns: readonly Turn[]): boolean {
  const last = turns.findLast((t) => t.role === 'assistant');
  if (!last || !Array.isArray(last.content)) return false;
  return last.content.some((b) => b.type === 'tool_use') && last.content[0]?.type !== 'thinking' && last.content[0]?.type !== 'redacted_thinking';
}

export function openAIToAnthropicRequest(body: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  refuseInexpressible(body, cx);
  const { system, turns } = messages(Array.isArray(body.messages) ? body.messages : [], cx);
  if (turns.length === 0) throw unsupported(cx.lang, 'messages', 'Anthropic needs at least one user or assistant message');
  const requested = body.max_completion_tokens ?? body.max_tokens;
  // Messages requires max_tokens: the model's output cap, which the reservation already covers.
  const maxTokens = typeof requested === 'number' && requested > 0 ? requested : outputCap(cx.model);
  const out: Record<string, unknown> = { model: cx.model, max_tokens: maxTokens, messages: turns };
  if (system.length) out.system = system;
  let think = thinking(body, maxTokens, cx);
  if (think && think.type !== 'disabled' && inToolLoopWithoutThinking(turns)) {
    // Answering tool results: this step runs without extended thinking rather than being refused.
    drop(cx, body.reasoning_effort !== undefined ? 'reasoning_effort' : 'thinking', 'a tool-use turn without its thinking block cannot continue with thinking enabled');
    think = undefined;
  }
  if (think) {
    // Extended thinking runs at temperature 1 (providers-international §1.1).
    if (typeof body.temperature === 'number' && body.temperature !== 1) throw unsupported(cx.lang, 'temperature', 'Anthropic reasoning runs at temperature 1');
    out.thinking = think;
  } else {
    if (body.temperature !== undefined && body.temperature !== null) out.temperature = body.temperature;
    if (body.top_p !== undefined && body.top_p !== null) out.top_p = body.top_p;
  }
  if (body.top_k !== undefined && body.top_k !== null) out.top_k = body.top_k;
  if (typeof body.stop === 'string') out.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length) out.stop_sequences = body.stop;
  if (body.stream === true) out.stream = true;
  const user = [body.user, body.safety_identifier, body.prompt_cache_key].find((v) => typeof v === 'string' && v);
  if (user) out.metadata = { user_id: user };
  const t = tools(body.tools, cx);
  if (t) out.tools = t;
  const choice = toolChoice(body.tool_choice, body.parallel_tool_calls, cx);
  if (choice && t) out.tool_choice = choice;
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key) cacheBreakpoints(out);
  return out;
}
