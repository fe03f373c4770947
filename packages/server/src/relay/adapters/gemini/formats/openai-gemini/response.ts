import { openAIUsageObject } from '../../../../formats/openai-chat/stream.js';
import { isObj } from '../../../../formats/shared/wire.js';
import { openAIFinish } from '../gemini/finish.js';
import { candidates, partsOf } from '../gemini/stream.js';
import { geminiUsage, usageField } from '../gemini/usage.js';
import type { ConvertContext } from '../../../../formats/types.js';

/** What a candidate's parts become in an OpenAI message or delta. */
export interface ChoiceParts {
  content: string;
  reasoning: string;
  calls: Array<{ name: string; arguments: string }>;
}

/**
 * Parts → content, reasoning and tool calls (providers-international §2.5): text joined, `thought`
 * parts as reasoning, function calls whole, code execution as fenced text, inline images as
 * markdown data URLs (chat completions have no image output).
 */
export function readParts(parts: Array<Record<string, unknown>>): ChoiceParts {
  const out: ChoiceParts = { content: '', reasoning: '', calls: [] };
  for (const p of parts) {
    if (typeof p.text === 'string') {
      if (p.thought === true) out.reasoning += p.text;
      else out.content += p.text;
      continue;
    }
    const call = p.functionCall ?? p.function_call;
    if (isObj(call)) {
      out.calls.push({ name: String(call.name ?? ''), arguments: JSON.stringify(call.args ?? {}) });
      continue;
    }
    const code = p.executableCode ?? p.executable_code;
    if (isObj(code)) out.content += `\n\`\`\`${String(code.language ?? '').toLowerCase()}\n${String(code.code ?? '')}\n\`\`\`\n`;
    const result = p.codeExecutionResult ?? p.code_execution_result;
    if (isObj(result)) out.content += `\n\`\`\`output\n${String(result.output ?? '')}\n\`\`\`\n`;
    const inline = p.inlineData ?? p.inline_data;
    if (isObj(inline)) out.content += `![image](data:${String(inline.mimeType ?? inline.mime_type ?? '')};base64,${String(inline.data ?? '')})`;
  }
  return out;
}

/** Gemini synthesises no call ids: one per call of the request, unique within the conversation. */
export function callId(cx: ConvertContext, candidate: number, k: number): string {
  return `call_${cx.requestId.replace(/[^A-Za-z0-9]/g, '')}_${candidate}_${k}`;
}

/** A GenerateContentResponse → a chat completion, one choice per candidate. */
export function geminiToOpenAIResponse(json: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  const list = candidates(json);
  const choices = list.map((c, i) => {
    const index = typeof c.index === 'number' ? c.index : i;
    const r = readParts(partsOf(c));
    const message: Record<string, unknown> = { role: 'assistant', content: r.content || (r.calls.length ? null : ''), refusal: null };
    if (r.reasoning) message.reasoning_content = r.reasoning;
    if (r.calls.length) message.tool_calls = r.calls.map((fn, k) => ({ id: callId(cx, index, k), type: 'function', function: fn }));
    return { index, message, logprobs: null, finish_reason: openAIFinish(c.finishReason ?? c.finish_reason, r.calls.length > 0) ?? 'stop' };
  });
  // A blocked prompt has no candidates, only promptFeedback.blockReason.
  if (choices.length === 0) choices.push({ index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: 'content_filter' });
  const usage = geminiUsage(usageField(json));
  const out: Record<string, unknown> = {
    id: typeof json.responseId === 'string' ? `chatcmpl-${json.responseId}` : `chatcmpl-${cx.requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof json.modelVersion === 'string' ? json.modelVersion : cx.model,
    choices,
  };
  if (usage) out.usage = openAIUsageObject(usage);
  return out;
}
