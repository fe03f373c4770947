/**
 * The fake's deterministic token rules, shared by its handlers and by tests that assert billing.
 * A token is a whitespace-separated word of the prompt's text (system instruction, text parts,
 * function-call arguments and function responses as JSON); an inline image counts 258 tokens, as
 * Gemini bills an image. `cachedContentTokenCount` is carved out of (and included in) the prompt.
 */
import { camelize, isRecord } from './validate.js';

export const FAKE_GEMINI_WORDS = ['Hello', 'from', 'the', 'fake', 'Gemini', 'model', 'at', 'your', 'service', 'today'];
/** The thought text when thinking is on (3 words = 3 thought tokens). */
export const FAKE_GEMINI_THOUGHT = 'Considering the question';
/** Arguments of every fake function call (a call arrives whole). */
export const FAKE_GEMINI_ARGS = { location: 'San Francisco, CA', unit: 'celsius' };
/** Gemini's price of one inline image in prompt tokens. */
export const IMAGE_TOKENS = 258;

export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

const words = (text: string) => (text.trim() ? text.trim().split(/\s+/u).length : 0);

function partsTokens(content: unknown): number {
  if (!isRecord(content) || !Array.isArray(content.parts)) return 0;
  let n = 0;
  for (const p of content.parts) {
    if (!isRecord(p)) continue;
    if (typeof p.text === 'string') n += words(p.text);
    else if (isRecord(p.inlineData)) n += IMAGE_TOKENS;
    else if (isRecord(p.functionCall)) n += words(JSON.stringify(p.functionCall.args ?? {}));
    else if (isRecord(p.functionResponse)) n += words(JSON.stringify(p.functionResponse.response ?? {}));
  }
  return n;
}

/** Prompt tokens of a (camelCase) GenerateContentRequest. */
export function promptTokens(body: Record<string, unknown>): number {
  let n = partsTokens(body.systemInstruction);
  for (const c of Array.isArray(body.contents) ? body.contents : []) n += partsTokens(c);
  return n;
}

function thinking(body: Record<string, unknown>): { tokens: number; shown: boolean } {
  const g = isRecord(body.generationConfig) ? body.generationConfig : {};
  const t = isRecord(g.thinkingConfig) ? g.thinkingConfig : undefined;
  if (!t) return { tokens: 0, shown: false };
  const on = t.includeThoughts === true || (typeof t.thinkingBudget === 'number' && t.thinkingBudget !== 0);
  return { tokens: on ? words(FAKE_GEMINI_THOUGHT) : 0, shown: on && t.includeThoughts === true };
}

/** The text words of a reply: `chunkCount`, cut by maxOutputTokens (then finishReason MAX_TOKENS). */
export function replyWords(body: Record<string, unknown>, chunkCount: number): { words: string[]; truncated: boolean } {
  const g = isRecord(body.generationConfig) ? body.generationConfig : {};
  const max = typeof g.maxOutputTokens === 'number' ? g.maxOutputTokens : chunkCount;
  const n = Math.min(chunkCount, max);
  return { words: Array.from({ length: n }, (_, i) => FAKE_GEMINI_WORDS[i % FAKE_GEMINI_WORDS.length]!), truncated: n < chunkCount };
}

function lastUserText(contents: unknown): { text: string; answered: boolean } {
  const list = Array.isArray(contents) ? contents.filter(isRecord) : [];
  const last = list.at(-1);
  const parts = last && Array.isArray(last.parts) ? last.parts.filter(isRecord) : [];
  return { text: parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join(' '), answered: parts.some((p) => p.functionResponse !== undefined) };
}

/**
 * The function the fake calls, or null for a text reply: `ANY` mode calls the first allowed (or
 * first declared) function; unless `NONE`, a last user turn that mentions weather (and is not a
 * function response) calls the first function named like "weather".
 */
export function chooseFunction(body: Record<string, unknown>): string | null {
  const names = (Array.isArray(body.tools) ? body.tools.filter(isRecord) : []).flatMap((t) => (Array.isArray(t.functionDeclarations) ? t.functionDeclarations.filter(isRecord).map((d) => String(d.name)) : []));
  if (names.length === 0) return null;
  const fc = isRecord(body.toolConfig) && isRecord(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  const allowed = Array.isArray(fc.allowedFunctionNames) ? fc.allowedFunctionNames.map(String) : [];
  if (fc.mode === 'ANY') return allowed[0] ?? names[0]!;
  if (fc.mode === 'NONE') return null;
  const last = lastUserText(body.contents);
  if (last.answered || !/\bweather\b/iu.test(last.text)) return null;
  return names.find((n) => n.toLowerCase().includes('weather')) ?? names[0]!;
}

/** What the fake reports for a request: for tests that assert a charge. A function call counts `chunkCount` tokens. */
export function expectedGeminiUsage(raw: Record<string, unknown>, opts: { chunkCount?: number; cachedTokens?: number } = {}): GeminiUsage {
  const body = camelize(raw) as Record<string, unknown>;
  const chunkCount = opts.chunkCount ?? 5;
  const prompt = promptTokens(body);
  const think = thinking(body);
  const candidates = chooseFunction(body) ? chunkCount : replyWords(body, chunkCount).words.length;
  const u: GeminiUsage = { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates + think.tokens };
  if (think.tokens) u.thoughtsTokenCount = think.tokens;
  const cached = Math.min(opts.cachedTokens ?? 0, prompt);
  if (cached) u.cachedContentTokenCount = cached;
  return u;
}

export { thinking };
