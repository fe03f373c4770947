import type { FormatSpec } from '../types.js';
import { geminiPromptAsChat } from './count.js';
import { geminiErrorBody } from './errors.js';
import { geminiPassthrough, geminiReader, geminiResponseText } from './stream.js';
import { geminiUsage, usageField } from './usage.js';

/**
 * The Gemini API's GenerateContent (providers-international §2). The model travels in the URL
 * (`models/{model}:generateContent`), so there is no model field to rewrite; the body takes
 * camelCase and snake_case field names alike.
 */
export const geminiSpec: FormatSpec = {
  name: 'gemini',
  setMaxTokens(body, n) {
    const key = body.generation_config !== undefined && body.generationConfig === undefined ? 'generation_config' : 'generationConfig';
    const g = (body[key] && typeof body[key] === 'object' ? body[key] : {}) as Record<string, unknown>;
    delete g.max_output_tokens;
    body[key] = { ...g, maxOutputTokens: n };
  },
  usage: (json) => geminiUsage(usageField(json)),
  responseText: geminiResponseText,
  promptAsChat: geminiPromptAsChat,
  embeddedError: (json) => !!json.error && typeof json.error === 'object',
  reader: geminiReader,
  passthrough: geminiPassthrough,
  errorBody: geminiErrorBody,
};
