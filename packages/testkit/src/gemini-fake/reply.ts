import { FAKE_GEMINI_ARGS, FAKE_GEMINI_THOUGHT, chooseFunction, expectedGeminiUsage, replyWords, thinking, type GeminiUsage } from './usage.js';

export interface ReplyPlan {
  model: string;
  responseId: string;
  /** The thought text returned as a `thought` part (includeThoughts), or null. */
  thought: string | null;
  words: string[];
  call: string | null;
  finishReason: 'STOP' | 'MAX_TOKENS';
  usage: GeminiUsage;
}

export function plan(body: Record<string, unknown>, opts: { model: string; chunkCount: number; cachedTokens: number; responseId: string }): ReplyPlan {
  const usage = expectedGeminiUsage(body, { chunkCount: opts.chunkCount, cachedTokens: opts.cachedTokens });
  const call = chooseFunction(body);
  const { words, truncated } = replyWords(body, opts.chunkCount);
  return {
    model: opts.model,
    responseId: opts.responseId,
    thought: thinking(body).shown ? FAKE_GEMINI_THOUGHT : null,
    words: call ? [] : words,
    call,
    finishReason: !call && truncated ? 'MAX_TOKENS' : 'STOP',
    usage,
  };
}

const SAFETY_RATINGS = ['HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_DANGEROUS_CONTENT', 'HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_SEXUALLY_EXPLICIT'].map((category) => ({ category, probability: 'NEGLIGIBLE' }));

function response(p: ReplyPlan, parts: Array<Record<string, unknown>>, final: boolean): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
  if (final) {
    candidate.finishReason = p.finishReason;
    candidate.safetyRatings = SAFETY_RATINGS;
  }
  const usageMetadata = final
    ? { ...p.usage, promptTokensDetails: [{ modality: 'TEXT', tokenCount: p.usage.promptTokenCount }] }
    : { promptTokenCount: p.usage.promptTokenCount, totalTokenCount: p.usage.promptTokenCount };
  return { candidates: [candidate], usageMetadata, modelVersion: p.model, responseId: p.responseId };
}

/** The non-stream GenerateContentResponse. */
export function generateReply(p: ReplyPlan): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [];
  if (p.thought) parts.push({ text: p.thought, thought: true });
  if (p.call) parts.push({ functionCall: { name: p.call, args: FAKE_GEMINI_ARGS } });
  else parts.push({ text: p.words.join(' ') });
  return response(p, parts, true);
}

/**
 * The stream (providers-international §2.3): a thought chunk first (includeThoughts), then one
 * chunk per word with the running usage, the last carrying finishReason and the final usage; a
 * function call arrives whole in one (final) chunk.
 */
export function* chunks(p: ReplyPlan): Generator<Record<string, unknown>> {
  if (p.thought) yield response(p, [{ text: p.thought, thought: true }], false);
  if (p.call) {
    yield response(p, [{ functionCall: { name: p.call, args: FAKE_GEMINI_ARGS } }], true);
    return;
  }
  for (const [i, w] of p.words.entries()) yield response(p, [{ text: i === 0 ? w : ` ${w}` }], i === p.words.length - 1);
  if (p.words.length === 0) yield response(p, [{ text: '' }], true);
}
