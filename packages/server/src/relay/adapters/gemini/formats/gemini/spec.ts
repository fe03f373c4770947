import { isObj } from '../../../../formats/shared/wire.js';
import type { FormatSpec } from '../../../../formats/types.js';
import { geminiPromptAsChat } from './count.js';
import { geminiErrorBody } from './errors.js';
import { geminiPassthrough, geminiReader, geminiResponseText } from './stream.js';
import { geminiUsage, usageField } from './usage.js';

/**
 * The Gemini API's GenerateContent (providers-international §2). The model travels in the URL
 * (`models/{model}:generateContent`), so there is no model field to rewrite; the body takes
 * camelCase and snake_case field names alike.
 */
/** The generation config of a body in either spelling, and its key. */
function generationConfig(body: Record<string, unknown>): { key: string; g: Record<string, unknown> } {
  const key = body.generation_config !== undefined && body.generationConfig === undefined ? 'generation_config' : 'generationConfig';
  return { key, g: isObj(body[key]) ? body[key] : {} };
}

/** The thinking config and its positive token budget (0 is off, -1 dynamic: neither has a floor). */
function thinkingBudget(g: Record<string, unknown>): { key: string; t: Record<string, unknown>; budget: number } | undefined {
  const key = g.thinkingConfig !== undefined || g.thinking_config === undefined ? 'thinkingConfig' : 'thinking_config';
  const t = g[key];
  if (!isObj(t)) return undefined;
  const budget = t.thinkingBudget ?? t.thinking_budget;
  return typeof budget === 'number' && budget > 0 ? { key, t, budget } : undefined;
}

/** The smallest thinking budget a model takes when thinking is on (Gemini API "Thinking": 2.5 Pro 128, Flash-Lite 512). */
function minThinkingBudget(model: string): number {
  if (model.includes('flash-lite')) return 512;
  if (model.includes('pro')) return 128;
  return 1;
}

export const geminiSpec: FormatSpec = {
  name: 'gemini',
  setMaxTokens(body, n) {
    const { key, g } = generationConfig(body);
    const next: Record<string, unknown> = { ...g, maxOutputTokens: n };
    delete next.max_output_tokens;
    // Thoughts count within maxOutputTokens: a budget at or above the cap leaves no room for the answer.
    const think = thinkingBudget(g);
    if (think && think.budget >= n) {
      const t: Record<string, unknown> = { ...think.t, thinkingBudget: n - 1 };
      delete t.thinking_budget;
      next[think.key] = t;
    }
    body[key] = next;
  },
  maxTokens(body) {
    const { g } = generationConfig(body);
    const v = g.maxOutputTokens ?? g.max_output_tokens;
    return typeof v === 'number' ? v : undefined;
  },
  minMaxTokens(body, model) {
    return thinkingBudget(generationConfig(body).g) ? minThinkingBudget(model) + 1 : undefined;
  },
  usage: (json) => geminiUsage(usageField(json)),
  responseText: geminiResponseText,
  promptAsChat: geminiPromptAsChat,
  embeddedError: (json) => !!json.error && typeof json.error === 'object',
  reader: geminiReader,
  passthrough: geminiPassthrough,
  errorBody: geminiErrorBody,
};
