import { anthropicOpenAI } from '../adapters/anthropic/formats/anthropic-openai/index.js';
import { anthropicMessages } from '../adapters/anthropic/formats/anthropic-messages/spec.js';
import { cohereChatSpec } from '../adapters/cohere/formats/cohere-chat/spec.js';
import { openAIEmbeddingsCohere } from '../adapters/cohere/formats/cohere-embed/index.js';
import { openAIEmbeddingsOllama } from '../adapters/ollama/formats/ollama-embed/index.js';
import { composeThroughChat } from './compose.js';
import { openAIEmbeddingsGemini } from '../adapters/gemini/formats/gemini/embeddings.js';
import { geminiEmbedContentBatch, geminiEmbedContentOpenAI, geminiEmbeddingsOpenAI, geminiEmbedTexts } from '../adapters/gemini/formats/gemini/embed-ingress.js';
import { geminiSpec } from '../adapters/gemini/formats/gemini/spec.js';
import { geminiOpenAI } from '../adapters/gemini/formats/gemini-openai/index.js';
import { openAIAnthropic } from '../adapters/anthropic/formats/openai-anthropic/index.js';
import { openAIChat, openAICompletions, openAIErrorBody } from './openai-chat/spec.js';
import { openAICohere } from '../adapters/cohere/formats/openai-cohere/index.js';
import { openAIGemini } from '../adapters/gemini/formats/openai-gemini/index.js';
import { openAIResponses } from './openai-responses/spec.js';
import { responsesOpenAI } from './responses-openai/index.js';
import type { BodyConverter, FormatConverter, FormatSpec, TextFormat, WireError, WireFormat } from './types.js';

/** Text formats ModelGate reads and writes. A new format is one folder and one line here. */
const SPECS: Partial<Record<TextFormat, FormatSpec>> = {
  'openai-chat': openAIChat,
  'openai-completions': openAICompletions,
  'anthropic-messages': anthropicMessages,
  gemini: geminiSpec,
  'openai-responses': openAIResponses,
  'cohere-chat': cohereChatSpec,
};

/**
 * Converters `<caller>-<upstream>`: the one registration point, shared by every adapter. Every
 * text format converts to and from OpenAI chat; a pair with no converter of its own (Gemini ↔
 * Anthropic, Responses → Gemini, …) is composed through OpenAI chat (compose.ts).
 */
const CONVERTERS: readonly FormatConverter[] = [openAIAnthropic, anthropicOpenAI, openAIGemini, geminiOpenAI, responsesOpenAI, openAICohere];
/** Body-only converters of the non-text modes (embeddings). */
const BODY_CONVERTERS: readonly BodyConverter[] = [openAIEmbeddingsGemini, geminiEmbedContentBatch, geminiEmbeddingsOpenAI, geminiEmbedContentOpenAI, openAIEmbeddingsCohere, openAIEmbeddingsOllama];

const key = (from: WireFormat, to: WireFormat) => `${from}>${to}`;
const BY_PAIR = new Map<string, BodyConverter>();
for (const c of [...CONVERTERS, ...BODY_CONVERTERS]) {
  if (BY_PAIR.has(key(c.from, c.to))) throw new Error(`converter ${key(c.from, c.to)} registered twice`);
  BY_PAIR.set(key(c.from, c.to), c);
}
const TEXT = new Map<string, FormatConverter>(CONVERTERS.map((c) => [key(c.from, c.to), c]));

export function specOf(format: WireFormat): FormatSpec | undefined {
  return SPECS[format as TextFormat];
}

/** The text converter of a pair: registered, else composed through OpenAI chat (built once). */
export function streamConverterFor(from: WireFormat, to: WireFormat): FormatConverter | undefined {
  const k = key(from, to);
  const found = TEXT.get(k);
  if (found || from === to) return found;
  const first = TEXT.get(key(from, 'openai-chat'));
  const second = TEXT.get(key('openai-chat', to));
  if (!first || !second) return undefined;
  const composed = composeThroughChat(first, second, specOf('openai-chat')!);
  TEXT.set(k, composed);
  return composed;
}

export function converterFor(from: WireFormat, to: WireFormat): BodyConverter | undefined {
  return BY_PAIR.get(key(from, to)) ?? streamConverterFor(from, to);
}

/** Formats of the non-text modes that are not OpenAI's: the text format whose errors they share. */
const ERRORS_LIKE: Partial<Record<WireFormat, TextFormat>> = { 'gemini-embeddings': 'gemini', 'gemini-embed-content': 'gemini' };

/** An error body in the caller's format (OpenAI's for every OpenAI-shaped mode). */
export function errorBodyFor(format: WireFormat, err: WireError): Record<string, unknown> {
  return (specOf(ERRORS_LIKE[format] ?? format)?.errorBody ?? openAIErrorBody)(err);
}

/** Names the upstream model in a body passed through (model mapping): text formats through their spec, Gemini batches per request. */
export function setBodyModel(format: WireFormat, body: Record<string, unknown>, model: string): void {
  const spec = specOf(format);
  if (spec) {
    spec.setModel?.(body, model);
  } else if (format === 'gemini-embeddings') {
    if (Array.isArray(body.requests)) body.requests = body.requests.map((r: unknown) => (r && typeof r === 'object' ? { ...r, model: `models/${model}` } : r));
  } else {
    body.model = model;
  }
}

/** The texts an embeddings body embeds, in OpenAI's `input` shape, for local counting. */
export function embeddingsInput(format: WireFormat, body: Record<string, unknown>): unknown {
  return format === 'gemini-embeddings' || format === 'gemini-embed-content' ? geminiEmbedTexts(body) : body.input;
}
