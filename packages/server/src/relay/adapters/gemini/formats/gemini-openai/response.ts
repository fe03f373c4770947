import { readUsage } from '../../../../billing/pricing.js';
import { toolInput } from '../../../anthropic/formats/anthropic-openai/response.js';
import { isObj } from '../../../../formats/shared/wire.js';
import { geminiFinish } from '../gemini/finish.js';
import { usageMetadata } from '../gemini/usage.js';
import type { ConvertContext } from '../../../../formats/types.js';

/** An OpenAI message (or accumulated delta) → Gemini parts: thoughts, text, then function calls with their ids. */
export function partsOfMessage(m: Record<string, unknown>): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  if (typeof m.reasoning_content === 'string' && m.reasoning_content) parts.push({ text: m.reasoning_content, thought: true });
  if (typeof m.content === 'string' && m.content) parts.push({ text: m.content });
  for (const c of Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObj) : []) {
    const fn = isObj(c.function) ? c.function : {};
    parts.push({ functionCall: { id: c.id, name: fn.name, args: toolInput(fn.arguments) } });
  }
  return parts;
}

/** A chat completion → a GenerateContentResponse, one candidate per choice. */
export function openAIToGeminiResponse(json: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  const choices = Array.isArray(json.choices) ? json.choices.filter(isObj) : [];
  const candidates = choices.map((c, i) => ({
    content: { role: 'model', parts: partsOfMessage(isObj(c.message) ? c.message : {}) },
    finishReason: geminiFinish(c.finish_reason),
    index: typeof c.index === 'number' ? c.index : i,
  }));
  return {
    candidates,
    usageMetadata: usageMetadata(readUsage(json.usage)),
    modelVersion: typeof json.model === 'string' ? json.model : cx.model,
    responseId: typeof json.id === 'string' ? json.id : cx.requestId,
  };
}
