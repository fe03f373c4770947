/**
 * The fake's deterministic token rules, shared by its handlers and by tests that assert billing.
 * A token is a whitespace-separated word of the prompt's text (system, text blocks, tool
 * results, tool-use inputs as JSON); images and documents count nothing. The cache counts are
 * carved out of the prompt: `input_tokens` is only the uncached part, as Anthropic reports it.
 */
import { isRecord } from './validate.js';

export const FAKE_CLAUDE_WORDS = ['Hello', 'from', 'the', 'fake', 'Claude', 'model', 'at', 'your', 'service', 'today'];
/** The thinking text of a reply when `thinking` is enabled (3 words = 3 output tokens). */
export const FAKE_THINKING = 'Considering the question';
/** Input of every fake tool call, streamed as `input_json_delta` fragments. */
export const FAKE_TOOL_INPUT = { location: 'San Francisco, CA', unit: 'celsius' };

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

const words = (text: string) => (text.trim() ? text.trim().split(/\s+/u).length : 0);

function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: unknown) => {
      if (!isRecord(b)) return '';
      if (typeof b.text === 'string') return b.text;
      if (b.type === 'tool_result') return blockText(b.content);
      if (b.type === 'tool_use') return JSON.stringify(b.input ?? {});
      return '';
    })
    .join(' ');
}

/** Prompt words of a Messages body. */
export function promptWords(body: Record<string, unknown>): number {
  let n = words(blockText(body.system));
  for (const m of Array.isArray(body.messages) ? body.messages : []) if (isRecord(m)) n += words(blockText(m.content));
  return n;
}

/** The text words of a reply: `chunkCount`, cut by max_tokens (then stop_reason `max_tokens`). */
export function replyWords(body: Record<string, unknown>, chunkCount: number): { words: string[]; truncated: boolean } {
  const max = typeof body.max_tokens === 'number' ? body.max_tokens : chunkCount;
  const n = Math.min(chunkCount, max);
  return { words: Array.from({ length: n }, (_, i) => FAKE_CLAUDE_WORDS[i % FAKE_CLAUDE_WORDS.length]!), truncated: n < chunkCount };
}

/** Usage of a prompt of `prompt` words with the configured cache counts. */
export function promptUsage(prompt: number, cacheRead: number, cacheCreation: number): Omit<AnthropicUsage, 'output_tokens'> {
  const read = Math.min(cacheRead, prompt);
  const creation = Math.min(cacheCreation, prompt - read);
  return { input_tokens: prompt - read - creation, cache_creation_input_tokens: creation, cache_read_input_tokens: read };
}

/**
 * What the fake reports for a Messages body: for tests that assert a charge. A tool reply and a
 * text reply both count `chunkCount` output tokens; thinking adds its words.
 */
export function expectedMessagesUsage(body: Record<string, unknown>, opts: { chunkCount?: number; cacheReadTokens?: number; cacheCreationTokens?: number } = {}): AnthropicUsage {
  const chunkCount = opts.chunkCount ?? 5;
  const thinking = isRecord(body.thinking) && body.thinking.type === 'enabled' ? words(FAKE_THINKING) : 0;
  const out = chooseTool(body) ? chunkCount : replyWords(body, chunkCount).words.length;
  return { ...promptUsage(promptWords(body), opts.cacheReadTokens ?? 0, opts.cacheCreationTokens ?? 0), output_tokens: out + thinking };
}

function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m: unknown = messages[i];
    if (isRecord(m) && m.role === 'user') return blockText(m.content);
  }
  return '';
}

/**
 * The tool the fake calls, or null for a text reply: `tool_choice` `tool` (that one) or `any` (the
 * first), else — unless `none` — the first tool named like "weather" when the last user turn
 * mentions weather and no tool result came back yet.
 */
export function chooseTool(body: Record<string, unknown>): string | null {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord).map((t) => String(t.name)) : [];
  if (tools.length === 0) return null;
  const choice = isRecord(body.tool_choice) ? body.tool_choice : {};
  if (choice.type === 'tool' && typeof choice.name === 'string') return choice.name;
  if (choice.type === 'any') return tools[0]!;
  if (choice.type === 'none') return null;
  const last = Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
  const answered = isRecord(last) && Array.isArray(last.content) && last.content.some((b) => isRecord(b) && b.type === 'tool_result');
  if (answered || !/\bweather\b/iu.test(lastUserText(body.messages))) return null;
  return tools.find((t) => t.toLowerCase().includes('weather')) ?? tools[0]!;
}
