import type { ConvertedReply, Usage } from './adapters/types.js';
import { emptyUsage, readUsage } from './billing/pricing.js';
import { countChatPrompt, countInput, countText } from './billing/token-counter.js';
import { embeddingsInput, specOf } from './formats/registry.js';
import { rerankDocumentTexts } from './formats/rerank/index.js';
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
      return countChatPrompt(input.model, specOf(input.format)?.promptAsChat?.(body) ?? body);
    case 'completions':
      return countInput(input.model, body.prompt);
    case 'embeddings':
      return countInput(input.model, embeddingsInput(input.format, body));
    case 'moderations':
      return countInput(input.model, body.input);
    case 'rerank':
      // The reference's rule (server-behaviour §4): prompt = tokens(query + documents), charged as text.
      return countInput(input.model, [String(body.query ?? ''), ...rerankDocumentTexts(body.documents)]);
    default:
      return 0;
  }
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
 * locally (reference §3.4: completion from the reply's text, prompt from the request). Text
 * modes read the reply through the adapter (`reply`), in the upstream's own format.
 */
export async function bufferedUsage(input: RelayInput, json: Record<string, unknown> | undefined, body: Buffer, reply?: ConvertedReply): Promise<Usage> {
  const reported = reply ? reply.usage : readUsage(json?.usage);
  switch (input.mode) {
    case 'chat':
    case 'completions': {
      if (reported && reported.promptTokens + reported.completionTokens > 0) return reported;
      const u = emptyUsage();
      u.promptTokens = await localPromptTokens(input);
      u.completionTokens = reply ? await countText(input.model, reply.text()) : 0;
      return u;
    }
    case 'embeddings': {
      if (reported) return reported;
      return { ...emptyUsage(), promptTokens: await localPromptTokens(input) };
    }
    case 'moderations':
    case 'rerank':
      return { ...emptyUsage(), promptTokens: await localPromptTokens(input) };
    case 'transcriptions':
    case 'translations':
      return { ...emptyUsage(), completionTokens: await countText(input.model, transcriptText(input.responseFormat ?? 'json', body, json)) };
    case 'speech':
      return { ...emptyUsage(), promptTokens: codePoints(String(input.body?.input ?? '')) };
    case 'images':
    case 'image-edits':
    case 'image-variations':
      return { ...emptyUsage(), promptTokens: input.image?.n ?? 1 };
    case 'realtime':
      // Realtime sessions bill each `response.done` usage themselves (relay/realtime/); nothing is buffered.
      return emptyUsage();
  }
}

/**
 * Usage of a relayed stream without a final usage from the upstream: counted over what was
 * forwarded. A provisional usage (Anthropic's `message_start`) still gives the prompt side,
 * cache reads and writes included; the completion is what was actually delivered.
 */
export async function countedStreamUsage(input: RelayInput, completionText: string, maxToolCalls: number, provisional?: Usage): Promise<Usage> {
  const completionTokens = (await countText(input.model, completionText)) + 7 * maxToolCalls;
  if (provisional && provisional.promptTokens > 0) return { ...provisional, completionTokens, reasoningTokens: 0 };
  return { ...emptyUsage(), promptTokens: await localPromptTokens(input), completionTokens };
}
