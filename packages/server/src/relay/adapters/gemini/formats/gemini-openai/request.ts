import { isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';
import { camelize } from '../gemini/camel.js';

/**
 * Gemini GenerateContentRequest → OpenAI chat request (the reverse of providers-international
 * §2.5). Safety settings have no OpenAI counterpart and are left out (OpenAI applies its own
 * policies); everything else OpenAI chat cannot express is refused with a 400 naming the field.
 */
const TOP_LEVEL = new Set(['model', 'contents', 'systemInstruction', 'generationConfig', 'safetySettings', 'tools', 'toolConfig']);
const GENERATION = new Set([
  'maxOutputTokens', 'temperature', 'topP', 'candidateCount', 'stopSequences', 'seed', 'presencePenalty', 'frequencyPenalty', 'responseMimeType',
  'responseSchema', 'responseJsonSchema', 'thinkingConfig', 'responseModalities',
]);
const AUDIO_FORMAT: Record<string, string> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mp3': 'mp3', 'audio/mpeg': 'mp3' };

type Msg = Record<string, unknown>;

/** Gemini's Schema spells types in capitals (`OBJECT`); JSON Schema wants them lower-case. */
function jsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchema);
  if (!isObj(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type' && typeof v === 'string') out[k] = v.toLowerCase();
    else if (k === 'properties' && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, jsonSchema(s)]));
    else out[k] = isObj(v) || Array.isArray(v) ? jsonSchema(v) : v;
  }
  return out;
}

function mediaPart(d: Record<string, unknown>, cx: ConvertContext, where: string): Msg {
  const mime = String(d.mimeType ?? '').toLowerCase();
  const data = String(d.data ?? '');
  if (mime.startsWith('image/')) return { type: 'image_url', image_url: { url: `data:${mime};base64,${data}` } };
  const audio = AUDIO_FORMAT[mime];
  if (audio) return { type: 'input_audio', input_audio: { data, format: audio } };
  if (mime === 'application/pdf') return { type: 'file', file: { filename: 'document.pdf', file_data: `data:${mime};base64,${data}` } };
  throw unsupported(cx.lang, `${where}.inline_data.mime_type`, `"${mime}" cannot be sent to an OpenAI-format channel`);
}

/** Function calls not answered yet, oldest first, so a response without an id finds its call by name. */
class PendingCalls {
  private list: Array<{ id: string; name: string }> = [];
  private n = 0;

  add(name: string, id: unknown): string {
    const callId = typeof id === 'string' && id ? id : `call_${++this.n}`;
    this.list.push({ id: callId, name });
    return callId;
  }

  take(name: string, id: unknown): string | undefined {
    const at = this.list.findIndex((c) => (typeof id === 'string' && id ? c.id === id : c.name === name));
    return at < 0 ? undefined : this.list.splice(at, 1)[0]!.id;
  }
}

function modelTurn(parts: Array<Record<string, unknown>>, pending: PendingCalls, cx: ConvertContext, where: string): Msg {
  let text = '';
  const calls: Msg[] = [];
  parts.forEach((p, j) => {
    if (typeof p.text === 'string') {
      // Earlier thoughts are not input to the next turn (as with echoed Anthropic thinking).
      if (p.thought !== true) text += p.text;
    } else if (isObj(p.functionCall)) {
      const name = String(p.functionCall.name ?? '');
      calls.push({ id: pending.add(name, p.functionCall.id), type: 'function', function: { name, arguments: JSON.stringify(p.functionCall.args ?? {}) } });
    } else throw unsupported(cx.lang, `${where}.parts[${j}]`, 'only text and function calls can be sent to an OpenAI-format channel');
  });
  const msg: Msg = { role: 'assistant', content: text || null };
  if (calls.length) msg.tool_calls = calls;
  return msg;
}

function userTurn(parts: Array<Record<string, unknown>>, pending: PendingCalls, cx: ConvertContext, where: string): Msg[] {
  const tools: Msg[] = [];
  const content: Msg[] = [];
  parts.forEach((p, j) => {
    const at = `${where}.parts[${j}]`;
    if (typeof p.text === 'string') content.push({ type: 'text', text: p.text });
    else if (isObj(p.inlineData)) content.push(mediaPart(p.inlineData, cx, at));
    else if (isObj(p.functionResponse)) {
      const name = String(p.functionResponse.name ?? '');
      const id = pending.take(name, p.functionResponse.id);
      if (!id) throw unsupported(cx.lang, `${at}.function_response`, `no earlier function call of "${name}" to answer`);
      tools.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(p.functionResponse.response ?? {}) });
    } else if (isObj(p.fileData)) throw unsupported(cx.lang, `${at}.file_data`, 'file URIs refer to Google storage: send the data inline');
    else throw unsupported(cx.lang, at, 'this part cannot be sent to an OpenAI-format channel');
  });
  // OpenAI wants each result as its own `tool` message, right after the assistant's calls.
  if (!content.length) return tools;
  const onlyText = content.every((c) => c.type === 'text');
  return [...tools, { role: 'user', content: onlyText ? content.map((c) => String(c.text)).join('') : content }];
}

function effortOf(budget: number): string {
  if (budget < 0) return 'medium';
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

function generation(g: Record<string, unknown>, out: Record<string, unknown>, cx: ConvertContext): void {
  for (const k of Object.keys(g)) if (!GENERATION.has(k)) throw unsupported(cx.lang, `generation_config.${k}`, 'cannot be sent to an OpenAI-format channel');
  if (typeof g.maxOutputTokens === 'number') out.max_tokens = g.maxOutputTokens;
  if (typeof g.temperature === 'number') out.temperature = g.temperature;
  if (typeof g.topP === 'number') out.top_p = g.topP;
  if (typeof g.candidateCount === 'number' && g.candidateCount !== 1) out.n = g.candidateCount;
  if (Array.isArray(g.stopSequences) && g.stopSequences.length) out.stop = g.stopSequences;
  if (typeof g.seed === 'number') out.seed = g.seed;
  if (typeof g.presencePenalty === 'number') out.presence_penalty = g.presencePenalty;
  if (typeof g.frequencyPenalty === 'number') out.frequency_penalty = g.frequencyPenalty;
  const schema = g.responseJsonSchema ?? g.responseSchema;
  if (g.responseMimeType === 'application/json') {
    out.response_format = isObj(schema) ? { type: 'json_schema', json_schema: { name: 'response', schema: jsonSchema(schema) } } : { type: 'json_object' };
  } else if (g.responseMimeType !== undefined && g.responseMimeType !== 'text/plain') {
    throw unsupported(cx.lang, 'generation_config.response_mime_type', 'use text/plain or application/json');
  }
  if (Array.isArray(g.responseModalities) && g.responseModalities.some((m) => String(m).toUpperCase() !== 'TEXT')) {
    throw unsupported(cx.lang, 'generation_config.response_modalities', 'only TEXT replies can come from an OpenAI-format channel');
  }
  if (isObj(g.thinkingConfig) && typeof g.thinkingConfig.thinkingBudget === 'number' && g.thinkingConfig.thinkingBudget !== 0) {
    out.reasoning_effort = effortOf(g.thinkingConfig.thinkingBudget);
  }
}

function tools(list: unknown, cx: ConvertContext): Msg[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: Msg[] = [];
  list.forEach((t, i) => {
    const tool = isObj(t) ? t : {};
    for (const k of Object.keys(tool)) {
      if (k !== 'functionDeclarations') throw unsupported(cx.lang, `tools[${i}].${k}`, 'Google built-in tools run only on Gemini');
    }
    for (const d of Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations.filter(isObj) : []) {
      const schema = d.parametersJsonSchema ?? d.parameters;
      const fn: Msg = { name: d.name, parameters: isObj(schema) ? jsonSchema(schema) : { type: 'object', properties: {} } };
      if (typeof d.description === 'string') fn.description = d.description;
      out.push({ type: 'function', function: fn });
    }
  });
  return out.length ? out : undefined;
}

function toolChoice(config: unknown, out: Record<string, unknown>, cx: ConvertContext): void {
  const fc = isObj(config) && isObj(config.functionCallingConfig) ? config.functionCallingConfig : undefined;
  if (!fc || fc.mode === undefined || fc.mode === 'AUTO') return;
  const names = Array.isArray(fc.allowedFunctionNames) ? fc.allowedFunctionNames : [];
  if (fc.mode === 'NONE') out.tool_choice = 'none';
  else if (fc.mode === 'ANY' && names.length === 1) out.tool_choice = { type: 'function', function: { name: String(names[0]) } };
  else if (fc.mode === 'ANY' && names.length === 0) out.tool_choice = 'required';
  else throw unsupported(cx.lang, 'tool_config.function_calling_config', 'use AUTO, NONE, or ANY with at most one allowed function');
}

export function geminiToOpenAIRequest(raw: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  const body = camelize(raw) as Record<string, unknown>;
  for (const k of Object.keys(body)) if (!TOP_LEVEL.has(k)) throw unsupported(cx.lang, k, 'cannot be sent to an OpenAI-format channel');
  const messages: Msg[] = [];
  const sys = isObj(body.systemInstruction) && Array.isArray(body.systemInstruction.parts) ? body.systemInstruction.parts.filter(isObj) : [];
  const system = sys.map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');
  if (system) messages.push({ role: 'system', content: system });
  const pending = new PendingCalls();
  (Array.isArray(body.contents) ? body.contents.filter(isObj) : []).forEach((c, i) => {
    const parts = Array.isArray(c.parts) ? c.parts.filter(isObj) : [];
    if (c.role === 'model') messages.push(modelTurn(parts, pending, cx, `contents[${i}]`));
    else messages.push(...userTurn(parts, pending, cx, `contents[${i}]`));
  });
  const out: Record<string, unknown> = { model: cx.model, messages };
  if (isObj(body.generationConfig)) generation(body.generationConfig, out, cx);
  if (cx.stream) out.stream = true;
  const t = tools(body.tools, cx);
  if (t) {
    out.tools = t;
    toolChoice(body.toolConfig, out, cx);
  }
  return out;
}
