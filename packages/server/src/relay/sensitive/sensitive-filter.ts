import type { OptionsService } from '../../modules/options/options.service.js';
import { embeddingsInput, specOf } from '../formats/registry.js';
import type { RelayInput } from '../request-parse.js';
import { AhoCorasick } from './aho-corasick.js';

/**
 * The sensitive-word filter (reference §12): SensitiveWords, one word per line, matched
 * case-insensitively against the prompt when CheckSensitiveEnabled and
 * CheckSensitiveOnPromptEnabled are both on. The reference never reads its
 * CheckSensitiveOnCompletionEnabled and StopOnSensitiveEnabled switches; here they screen the
 * answer too (`completionScreen`, docs/relay-billing.md "Sensitive answers").
 */

let cache: { words: string; matcher: AhoCorasick } | undefined;

/** The automaton for the current word list: rebuilt only when the option's value changed. */
export function sensitiveMatcher(words: string): AhoCorasick {
  if (cache?.words !== words) cache = { words, matcher: new AhoCorasick(words.split(/\r?\n/)) };
  return cache.matcher;
}

function addText(out: string[], v: unknown): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const item of v) addText(out, item);
}

/**
 * Chat message text: string content and the text parts of array content. (The reference skipped
 * array content through an inverted branch; a prompt split into parts is checked here too.)
 */
function addMessages(out: string[], messages: unknown): void {
  if (!Array.isArray(messages)) return;
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const content = (m as { content?: unknown }).content;
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') out.push((part as { text: string }).text);
      }
    }
  }
}

/** The prompt texts a request sends, per mode (the modes the reference checks, plus rerank). */
export function promptTexts(input: RelayInput): string[] {
  const body = input.body;
  if (!body) return [];
  const out: string[] = [];
  switch (input.mode) {
    case 'chat': {
      const chat = specOf(input.format)?.promptAsChat?.(body) ?? body;
      addMessages(out, chat.messages);
      break;
    }
    case 'completions':
      addText(out, body.prompt);
      break;
    case 'embeddings':
      addText(out, embeddingsInput(input.format, body));
      break;
    case 'moderations':
      addText(out, body.input);
      break;
    case 'images':
      addText(out, body.prompt);
      break;
    case 'speech':
      addText(out, body.input);
      break;
    case 'rerank':
      addText(out, body.query);
      break;
    default:
      break;
  }
  return out;
}

/** The sensitive words the prompt contains (none when the filter is off or the list is empty). */
export function sensitiveHits(options: Pick<OptionsService, 'bool' | 'str'>, input: RelayInput): string[] {
  if (!options.bool('CheckSensitiveEnabled') || !options.bool('CheckSensitiveOnPromptEnabled')) return [];
  const matcher = sensitiveMatcher(options.str('SensitiveWords'));
  if (matcher.size === 0) return [];
  const hits = new Set<string>();
  for (const text of promptTexts(input)) for (const w of matcher.findAll(text)) hits.add(w);
  return [...hits];
}

/**
 * The answer's screen, when CheckSensitiveEnabled and CheckSensitiveOnCompletionEnabled are on
 * (undefined otherwise): `feed` takes the answer's text as it arrives (a word split across two
 * stream events is still found) and returns the words first seen in that piece. Every word is
 * written to the log's `other.sensitive_words`; with StopOnSensitiveEnabled the answer is also
 * stopped at the event that completes a word (that event is not forwarded).
 */
export interface CompletionScreen {
  readonly stop: boolean;
  feed(text: string): string[];
}

export function completionScreen(options: Pick<OptionsService, 'bool' | 'str'>): CompletionScreen | undefined {
  if (!options.bool('CheckSensitiveEnabled') || !options.bool('CheckSensitiveOnCompletionEnabled')) return undefined;
  const matcher = sensitiveMatcher(options.str('SensitiveWords'));
  if (matcher.size === 0) return undefined;
  const scan = matcher.scanner();
  return { stop: options.bool('StopOnSensitiveEnabled'), feed: (text) => scan.feed(text) };
}
