import type { Usage } from './adapters/types.js';
import { emptyUsage, readUsage } from './billing/pricing.js';
import { countChatPrompt, countInput, countText } from './billing/token-counter.js';
import type { RelayInput } from './request-parse.js';

/** Characters (code points) of a string without building an array of them: speech bills per character. */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) if ((text.charCodeAt(i) & 0xfc00) === 0xdc00 && i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800) n--;
  return n;
}

/** Prompt tokens counted locally for the modes that have a text prompt. */
export async function localPromptTokens(input: RelayInput): Promise<number> {
  const body = input.body ?? {};
  switch (input.mode) {
    case 'chat':
      return countChatPrompt(input.model, body);
    case 'completions':
      return countInput(input.model, body.prompt);
    case 'embeddings':
    case 'moderations':
      return countInput(input.model, body.input);
    default:
      return 0;
  }
}

function choicesText(json: Record<string, unknown>): string {
  const choices = Array.isArray(json.choices) ? (json.choices as Array<Record<string, unknown>>) : [];
  let text = '';
  for (const c of choices) {
    if (typeof c.text === 'string') text += c.text;
    const m = c.message as Record<string, unknown> | undefined;
    if (!m) continue;
    if (typeof m.content === 'string') text += m.content;
    if (typeof m.reasoning_content === 'string') text += m.reasoning_content;
    if (Array.isArray(m.tool_calls)) {
      for (const tc of m.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) {
        if (typeof tc.function?.name === 'string') text += tc.function.name;
        if (typeof tc.function?.arguments === 'string') text += tc.function.arguments;
      }
    }
  }
  return text;
}

/** Transcript text of a transcription reply in any response_format (json, verbose_json, text, srt, vtt). */
export function transcriptText(format: string, body: Buffer, json: Record<string, unknown> | undefined): string {
  if (json && typeof json.text === 'string') return json.text;
  const text = body.toString('utf8');
  if (format === 'srt' || format === 'vtt') {
    return text
      .split('\n')
      .filter((l) => l.trim() && !/^\d+$/.test(l.trim()) && !l.includes('-->') && l.trim() !== 'WEBVTT')
      .join(' ');
  }
  return text;
}

/**
 * Usage of a buffered (non-stream) reply: the upstream's numbers when present, else counted
 * locally (reference §3.4: completion from the choices' text, prompt from the request).
 */
export async function bufferedUsage(input: RelayInput, json: Record<string, unknown> | undefined, body: Buffer): Promise<Usage> {
  const reported = readUsage(json?.usage);
  switch (input.mode) {
    case 'chat':
    case 'completions': {
      if (reported && reported.promptTokens + reported.completionTokens > 0) return reported;
      const u = emptyUsage();
      u.promptTokens = await localPromptTokens(input);
      u.completionTokens = json ? await countText(input.model, choicesText(json)) : 0;
      return u;
    }
    case 'embeddings': {
      if (reported) return reported;
      return { ...emptyUsage(), promptTokens: await localPromptTokens(input) };
    }
    case 'moderations':
      return { ...emptyUsage(), promptTokens: await localPromptTokens(input) };
    case 'transcriptions':
    case 'translations':
      return { ...emptyUsage(), completionTokens: await countText(input.model, transcriptText(input.responseFormat ?? 'json', body, json)) };
    case 'speech':
      return { ...emptyUsage(), promptTokens: codePoints(String(input.body?.input ?? '')) };
    case 'images':
      return { ...emptyUsage(), promptTokens: input.image?.n ?? 1 };
  }
}

/** Usage of a relayed stream whose upstream sent none: counted over what was forwarded. */
export async function countedStreamUsage(input: RelayInput, completionText: string, maxToolCalls: number): Promise<Usage> {
  const u = emptyUsage();
  u.promptTokens = await localPromptTokens(input);
  u.completionTokens = (await countText(input.model, completionText)) + 7 * maxToolCalls;
  return u;
}
