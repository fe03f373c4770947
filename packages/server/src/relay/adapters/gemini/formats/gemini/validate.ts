import type { Lang } from '@modelgate/shared';
import { localError, type RelayError } from '../../../../relay-error.js';
import { isObj } from '../../../../formats/shared/wire.js';
import { camelize } from './camel.js';

/** A 400 naming the field, in Google's words (`Invalid JSON payload received. Unknown name "x"`, `contents is not specified`). */
export function invalidGeminiField(lang: Lang, field: string, problem: string): RelayError {
  return localError(lang, 400, 'RELAY_INVALID_REQUEST', { type: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', detail: `${field}: ${problem}`, param: field });
}

const TOP_LEVEL = new Set(['model', 'contents', 'systemInstruction', 'generationConfig', 'safetySettings', 'tools', 'toolConfig', 'cachedContent']);
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];

function checkParts(lang: Lang, at: string, content: unknown): void {
  if (!isObj(content)) throw invalidGeminiField(lang, at, 'Input should be a Content object');
  if (!Array.isArray(content.parts) || content.parts.length === 0) throw invalidGeminiField(lang, `${at}.parts`, 'must contain at least one part');
  content.parts.forEach((p, j) => {
    const where = `${at}.parts[${j}]`;
    if (!isObj(p)) throw invalidGeminiField(lang, where, 'Input should be a Part object');
    const data = PART_DATA.filter((k) => p[k] !== undefined);
    if (data.length !== 1) throw invalidGeminiField(lang, where, `a part holds exactly one of ${PART_DATA.join(', ')}`);
    if (data[0] === 'text' && typeof p.text !== 'string') throw invalidGeminiField(lang, `${where}.text`, 'Input should be a string');
    if (data[0] === 'inlineData') {
      const d = p.inlineData;
      if (!isObj(d) || typeof d.mimeType !== 'string' || typeof d.data !== 'string') throw invalidGeminiField(lang, `${where}.inline_data`, 'mime_type and data are required');
    }
    if (data[0] === 'functionCall' && !(isObj(p.functionCall) && typeof p.functionCall.name === 'string')) throw invalidGeminiField(lang, `${where}.function_call.name`, 'is required');
    if (data[0] === 'functionResponse' && !(isObj(p.functionResponse) && typeof p.functionResponse.name === 'string')) {
      throw invalidGeminiField(lang, `${where}.function_response.name`, 'is required');
    }
  });
}

/**
 * Checks an inbound GenerateContentRequest (ai.google.dev/api/generate-content), camelCase or
 * snake_case: the fields ModelGate reads or converts; each failure names its field. With
 * `countTokens`, a `generateContentRequest` may stand in for `contents`.
 */
export function validateGeminiBody(lang: Lang, raw: Record<string, unknown>, opts: { countTokens?: boolean } = {}): void {
  const body = camelize(raw) as Record<string, unknown>;
  if (opts.countTokens && isObj(body.generateContentRequest)) return validateGeminiBody(lang, body.generateContentRequest);
  for (const k of Object.keys(body)) {
    if (!TOP_LEVEL.has(k)) throw invalidGeminiField(lang, k, `Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw invalidGeminiField(lang, 'contents', 'contents is not specified');
  body.contents.forEach((c, i) => {
    const at = `contents[${i}]`;
    checkParts(lang, at, c);
    const role = (c as Record<string, unknown>).role;
    if (role !== undefined && role !== 'user' && role !== 'model' && role !== 'function') {
      throw invalidGeminiField(lang, `${at}.role`, 'Please use a valid role: user, model.');
    }
  });
  if (body.systemInstruction !== undefined) checkParts(lang, 'system_instruction', body.systemInstruction);
  if (body.generationConfig !== undefined) {
    const g = body.generationConfig;
    if (!isObj(g)) throw invalidGeminiField(lang, 'generation_config', 'Input should be an object');
    const m = g.maxOutputTokens;
    if (m !== undefined && !(typeof m === 'number' && Number.isInteger(m) && m > 0)) throw invalidGeminiField(lang, 'generation_config.max_output_tokens', 'must be a positive integer');
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw invalidGeminiField(lang, 'tools', 'Input should be a list');
    body.tools.forEach((t, i) => {
      if (!isObj(t)) throw invalidGeminiField(lang, `tools[${i}]`, 'Input should be a Tool object');
      const decls = t.functionDeclarations;
      if (decls !== undefined && !(Array.isArray(decls) && decls.every((d) => isObj(d) && typeof d.name === 'string'))) {
        throw invalidGeminiField(lang, `tools[${i}].function_declarations`, 'every declaration needs a name');
      }
    });
  }
  if (body.safetySettings !== undefined && !Array.isArray(body.safetySettings)) throw invalidGeminiField(lang, 'safety_settings', 'Input should be a list');
}

/** `generationConfig.maxOutputTokens` of a body in either spelling. */
export function geminiMaxTokens(body: Record<string, unknown>): number | undefined {
  const g = body.generationConfig ?? body.generation_config;
  if (!isObj(g)) return undefined;
  const m = g.maxOutputTokens ?? g.max_output_tokens;
  return typeof m === 'number' && Number.isInteger(m) && m > 0 ? m : undefined;
}
