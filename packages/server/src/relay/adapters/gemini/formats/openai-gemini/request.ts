import { drop, isObj, parseDataUrl, plainText, refuseMeaningfulChatFields, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';
import { geminiSchema, geminiToolConfig, geminiTools } from './tools.js';

/**
 * OpenAI chat request → Gemini GenerateContentRequest (providers-international §2.5). What
 * Gemini cannot express is refused with a 400 naming the field, hints are left out with a note;
 * OpenAI-account features with no meaning upstream (stored completions, service tier, prompt cache
 * keys, the end-user id) are left out. `stream` travels in the URL.
 */
const ACCOUNT_ONLY = new Set(['store', 'metadata', 'service_tier', 'prompt_cache_key', 'safety_identifier', 'stream_options', 'user', 'stream']);
const MAPPED = new Set([
  'model', 'messages', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'n', 'seed', 'presence_penalty',
  'frequency_penalty', 'response_format', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning_effort', 'logprobs', 'top_logprobs', 'logit_bias',
]);

/**
 * Sent with every converted request, as the reference does: Gemini's own defaults block at
 * "medium", which would refuse answers an OpenAI caller gets elsewhere.
 */
export const DEFAULT_SAFETY_SETTINGS = [
  { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'OFF' },
  { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'OFF' },
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', threshold: 'OFF' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'OFF' },
  { category: 'HARM_CATEGORY_CIVIC_INTEGRITY', threshold: 'BLOCK_NONE' },
];

/** Thinking budget per `reasoning_effort` (0 turns thinking off where the model allows it). */
const EFFORT_BUDGET: Record<string, number> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576, xhigh: 24576 };
const AUDIO_MIME: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mp3' };

type Part = Record<string, unknown>;
interface Turn {
  role: 'user' | 'model';
  parts: Part[];
}

function refuseInexpressible(body: Record<string, unknown>, cx: ConvertContext): void {
  // Hints with no Gemini counterpart (verbosity, unknown fields) are left out with a note (docs/providers.md "Conversion policy").
  refuseMeaningfulChatFields(body, cx, 'Gemini');
  for (const key of Object.keys(body)) if (!MAPPED.has(key) && !ACCOUNT_ONLY.has(key)) drop(cx, key, 'no Gemini counterpart');
  if (body.logprobs === true) throw unsupported(cx.lang, 'logprobs', 'log probabilities are not converted from Gemini');
  if (isObj(body.logit_bias) && Object.keys(body.logit_bias).length > 0) throw unsupported(cx.lang, 'logit_bias', 'Gemini has no logit bias');
}

function imagePart(part: Record<string, unknown>, cx: ConvertContext, where: string): Part {
  const iu = part.image_url;
  const url = typeof iu === 'string' ? iu : isObj(iu) && typeof iu.url === 'string' ? iu.url : '';
  const data = parseDataUrl(url);
  if (data) return { inlineData: { mimeType: data.mediaType, data: data.data } };
  if (/^https?:\/\//i.test(url)) {
    // Gemini reads images inline only: the pipeline fetches the URL (SSRF-guarded) and the part is
    // filled in before the body is written.
    if (!cx.fetchImage || !cx.pending) throw unsupported(cx.lang, where, 'Gemini takes images inline: send a base64 data URL, not an http(s) URL');
    const part: Part = { inlineData: { mimeType: '', data: '' } };
    cx.pending.push(cx.fetchImage(url, where).then((img) => (part.inlineData = img)));
    return part;
  }
  throw unsupported(cx.lang, where, 'an image must be a base64 data URL');
}

function userParts(content: unknown, cx: ConvertContext, where: string): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) return [{ text: '' }];
  return content.map((p, j) => {
    const at = `${where}.${j}`;
    if (!isObj(p)) throw unsupported(cx.lang, at, 'a content part must be an object');
    if (p.type === 'text') return { text: String(p.text ?? '') };
    if (p.type === 'image_url') return imagePart(p, cx, at);
    if (p.type === 'input_audio') {
      const a = isObj(p.input_audio) ? p.input_audio : {};
      const mimeType = AUDIO_MIME[String(a.format)];
      if (!mimeType || typeof a.data !== 'string') throw unsupported(cx.lang, at, 'audio must be base64 wav or mp3');
      return { inlineData: { mimeType, data: a.data } };
    }
    if (p.type === 'file') {
      const f = isObj(p.file) ? p.file : {};
      const data = typeof f.file_data === 'string' ? parseDataUrl(f.file_data) : undefined;
      if (!data) throw unsupported(cx.lang, at, 'a file must be sent as a base64 data URL');
      return { inlineData: { mimeType: data.mediaType, data: data.data } };
    }
    throw unsupported(cx.lang, at, `content part "${String(p.type)}" is not supported by Gemini`);
  });
}

function functionCall(call: unknown, cx: ConvertContext, where: string): { part: Part; id: string; name: string } {
  const c = isObj(call) ? call : {};
  const fn = isObj(c.function) ? c.function : {};
  const name = String(fn.name ?? '');
  let args: unknown = {};
  const raw = typeof fn.arguments === 'string' ? fn.arguments.trim() : '';
  if (raw) {
    try {
      args = JSON.parse(raw);
    } catch {
      throw unsupported(cx.lang, `${where}.function.arguments`, 'tool call arguments must be a JSON object');
    }
  }
  if (!isObj(args)) throw unsupported(cx.lang, `${where}.function.arguments`, 'tool call arguments must be a JSON object');
  return { part: { functionCall: { name, args } }, id: String(c.id ?? ''), name };
}

/** A tool result as the object Gemini wants: the JSON object it already is, else `{content}`. */
function functionResult(content: unknown): Record<string, unknown> {
  const text = plainText(content);
  try {
    const v = JSON.parse(text) as unknown;
    if (isObj(v)) return v;
  } catch {
    // plain text: wrapped below
  }
  return { content: text };
}

function contents(list: unknown[], cx: ConvertContext): { system: string[]; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const callNames = new Map<string, string>();
  list.forEach((raw, i) => {
    const m = isObj(raw) ? raw : {};
    const where = `messages.${i}`;
    switch (m.role) {
      case 'system':
      case 'developer': {
        const text = plainText(m.content);
        if (!text) return;
        // Leading instructions are the systemInstruction; a later one stays at its place as a
        // user-role note (Gemini has one systemInstruction, and moving it would change its meaning).
        if (turns.length === 0) system.push(text);
        else {
          const prev = turns.at(-1)!;
          const note = { text: `[${String(m.role)}] ${text}` };
          if (prev.role === 'user') prev.parts.push(note);
          else turns.push({ role: 'user', parts: [note] });
        }
        return;
      }
      case 'user':
        turns.push({ role: 'user', parts: userParts(m.content, cx, `${where}.content`) });
        return;
      case 'assistant': {
        const parts: Part[] = [];
        const text = plainText(m.content);
        if (text) parts.push({ text });
        (Array.isArray(m.tool_calls) ? m.tool_calls : []).forEach((c, j) => {
          const fc = functionCall(c, cx, `${where}.tool_calls.${j}`);
          callNames.set(fc.id, fc.name);
          parts.push(fc.part);
        });
        if (parts.length) turns.push({ role: 'model', parts });
        return;
      }
      case 'tool': {
        // Gemini names a function result by the function, not by a call id.
        const name = callNames.get(String(m.tool_call_id ?? '')) ?? (typeof m.name === 'string' ? m.name : undefined);
        if (!name) throw unsupported(cx.lang, `${where}.tool_call_id`, 'a tool result must answer a tool call of an earlier assistant message');
        const part = { functionResponse: { name, response: functionResult(m.content) } };
        const prev = turns.at(-1);
        if (prev && prev.role === 'user' && prev.parts.every((p) => isObj(p.functionResponse))) prev.parts.push(part);
        else turns.push({ role: 'user', parts: [part] });
        return;
      }
      default:
        throw unsupported(cx.lang, `${where}.role`, `role "${String(m.role)}" is not supported by Gemini`);
    }
  });
  return { system, turns };
}

function generationConfig(body: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  const g: Record<string, unknown> = {};
  const max = body.max_completion_tokens ?? body.max_tokens;
  if (typeof max === 'number' && max > 0) g.maxOutputTokens = max;
  if (typeof body.temperature === 'number') g.temperature = body.temperature;
  if (typeof body.top_p === 'number') g.topP = body.top_p;
  if (typeof body.top_k === 'number') g.topK = body.top_k;
  if (typeof body.stop === 'string') g.stopSequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length) g.stopSequences = body.stop;
  if (typeof body.n === 'number' && body.n !== 1) g.candidateCount = body.n;
  if (typeof body.seed === 'number') g.seed = body.seed;
  if (typeof body.presence_penalty === 'number' && body.presence_penalty !== 0) g.presencePenalty = body.presence_penalty;
  if (typeof body.frequency_penalty === 'number' && body.frequency_penalty !== 0) g.frequencyPenalty = body.frequency_penalty;
  const rf = body.response_format;
  if (isObj(rf) && rf.type === 'json_object') g.responseMimeType = 'application/json';
  else if (isObj(rf) && rf.type === 'json_schema') {
    const js = isObj(rf.json_schema) ? rf.json_schema : {};
    g.responseMimeType = 'application/json';
    if (isObj(js.schema)) g.responseSchema = geminiSchema(js.schema);
  } else if (rf !== undefined && rf !== null && !(isObj(rf) && rf.type === 'text')) throw unsupported(cx.lang, 'response_format', 'use text, json_object or json_schema');
  const effort = body.reasoning_effort;
  if (effort !== undefined && effort !== null) {
    const budget = typeof effort === 'string' ? EFFORT_BUDGET[effort] : undefined;
    if (budget === undefined) throw unsupported(cx.lang, 'reasoning_effort', 'use none, minimal, low, medium, high or xhigh');
    g.thinkingConfig = budget > 0 ? { thinkingBudget: budget, includeThoughts: true } : { thinkingBudget: 0 };
  }
  return g;
}

export function openAIToGeminiRequest(body: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  refuseInexpressible(body, cx);
  const { system, turns } = contents(Array.isArray(body.messages) ? body.messages : [], cx);
  if (turns.length === 0) throw unsupported(cx.lang, 'messages', 'Gemini needs at least one user or assistant message');
  const out: Record<string, unknown> = { contents: turns };
  if (system.length) out.systemInstruction = { parts: [{ text: system.join('\n') }] };
  const g = generationConfig(body, cx);
  if (Object.keys(g).length) out.generationConfig = g;
  out.safetySettings = DEFAULT_SAFETY_SETTINGS;
  const tools = geminiTools(body.tools, cx);
  const toolConfig = geminiToolConfig(body.tool_choice, body.parallel_tool_calls, cx);
  if (tools) {
    out.tools = tools;
    if (toolConfig) out.toolConfig = toolConfig;
  }
  return out;
}
