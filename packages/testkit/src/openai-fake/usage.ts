/**
 * The fake's deterministic token rules, shared by the handlers and by tests that assert billing.
 *
 * A "fake token" is a whitespace-separated word: `countFakeTokens("Hi  there!") === 2`.
 *
 * - chat: prompt_tokens = fake tokens in every message's text (string content, or the `text`
 *   of `text` parts); completion_tokens = reply words (+ `reasoningTokens`). A text reply has
 *   `min(chunkCount, max_completion_tokens ?? max_tokens)` words (finish_reason `length` when cut
 *   short), a tool-call reply counts one token per argument fragment (= chunkCount).
 * - completions: prompt_tokens = fake tokens of the prompt (token-id arrays count their length);
 *   completion_tokens as for a chat text reply.
 * - embeddings: prompt_tokens = total_tokens = fake tokens of every input (token-id arrays count
 *   their length).
 */
import { chooseToolCall } from './tools.js';
import { isRecord, messageText } from './util.js';

export interface FakeUsageOptions {
  /** Content words per reply; default 5 (the server default). */
  chunkCount?: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface EmbeddingUsage {
  prompt_tokens: number;
  total_tokens: number;
}

export const DEFAULT_CHUNK_COUNT = 5;

/** Words the fake replies with, cycled; one word per content frame. */
const REPLY_WORDS = ['Hello', 'from', 'the', 'fake', 'OpenAI', 'upstream', 'at', 'your', 'service', 'today'];

export function countFakeTokens(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/u).length;
}

/** The content words of a reply with `words` words; joined with spaces they are the reply text. */
export function fakeReplyWords(words: number): string[] {
  return Array.from({ length: words }, (_, i) => REPLY_WORDS[i % REPLY_WORDS.length]);
}

/** The full reply text the fake sends for a text reply of `words` words. */
export function fakeReplyText(words: number): string {
  return fakeReplyWords(words).join(' ');
}

export function chatPromptTokens(body: unknown): number {
  if (!isRecord(body) || !Array.isArray(body.messages)) return 0;
  let total = 0;
  for (const message of body.messages) {
    if (isRecord(message)) total += countFakeTokens(messageText(message.content));
  }
  return total;
}

/** Tokens of a `prompt` / `input` value: strings count words, arrays of numbers count their length. */
export function inputTokens(input: unknown): number {
  if (typeof input === 'string') return countFakeTokens(input);
  if (!Array.isArray(input)) return 0;
  if (input.every((item) => typeof item === 'number')) return input.length;
  return input.reduce<number>((sum, item) => sum + inputTokens(item), 0);
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Words in a text reply: chunkCount, cut by `max_completion_tokens` / `max_tokens` when smaller. */
export function replyWordCount(body: unknown, chunkCount: number): { words: number; truncated: boolean } {
  const limit = isRecord(body) ? (positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens)) : undefined;
  if (limit !== undefined && limit < chunkCount) return { words: limit, truncated: true };
  return { words: chunkCount, truncated: false };
}

export function buildChatUsage(
  promptTokens: number,
  contentTokens: number,
  opts: { cachedTokens?: number; reasoningTokens?: number } = {},
): ChatUsage {
  const reasoning = opts.reasoningTokens ?? 0;
  const completion = contentTokens + reasoning;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    prompt_tokens_details: { cached_tokens: Math.min(opts.cachedTokens ?? 0, promptTokens), audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** Usage the fake reports for a chat completion request body (text or tool-call reply). */
export function expectedChatUsage(body: unknown, opts: FakeUsageOptions = {}): ChatUsage {
  const chunkCount = opts.chunkCount ?? DEFAULT_CHUNK_COUNT;
  const contentTokens = chooseToolCall(body) ? chunkCount : replyWordCount(body, chunkCount).words;
  return buildChatUsage(chatPromptTokens(body), contentTokens, opts);
}

/** Usage the fake reports for a legacy `/v1/completions` request body. */
export function expectedCompletionUsage(body: unknown, opts: FakeUsageOptions = {}): CompletionUsage {
  const prompt = isRecord(body) ? inputTokens(body.prompt) : 0;
  const completion = replyWordCount(body, opts.chunkCount ?? DEFAULT_CHUNK_COUNT).words;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Usage the fake reports for an `/v1/embeddings` request body. */
export function expectedEmbeddingUsage(body: unknown): EmbeddingUsage {
  const prompt = isRecord(body) ? inputTokens(body.input) : 0;
  return { prompt_tokens: prompt, total_tokens: prompt };
}
