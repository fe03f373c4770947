import { composeThroughChat } from './compose.js';
import { openAIChat, openAICompletions, openAIErrorBody } from './openai-chat/spec.js';
import { openAIResponses } from './openai-responses/spec.js';
import { responsesOpenAI } from './responses-openai/index.js';
import type { BodyConverter, FormatConverter, FormatSpec, TextFormat, WireError, WireFormat } from './types.js';

/**
 * The formats ModelGate reads and writes, and the converters between them.
 *
 * Only the hub formats are named here: OpenAI chat, completions and Responses (and Responses →
 * chat), which every provider converts through. A provider's own formats (Anthropic Messages,
 * Gemini, Cohere chat, …) live in its folder (`relay/adapters/<slug>/formats/`) and are handed in by
 * `loadProviders()` (relay/adapters/registry.ts) through `registerFormats`. This file never imports
 * an adapter: adapters import it, so the registration goes one way and no module loop can form.
 *
 * A provider format looked up before the providers were loaded is a boot-order bug, not "no such
 * converter": it throws (`ProvidersNotLoadedError`) instead of answering undefined.
 */

/** A non-text (body-only) format's rules that differ from OpenAI's: Gemini's batch embeddings. */
export interface BodyFormat {
  readonly name: WireFormat;
  /** The text format whose error body this one answers with (Gemini embeddings: Gemini's). */
  readonly errorsLike?: TextFormat;
  /** Names the upstream model in a body passed through (absent: a top-level `model` field). */
  setModel?(body: Record<string, unknown>, model: string): void;
  /** The texts a body embeds, in OpenAI's `input` shape, for local counting (absent: `body.input`). */
  inputTexts?(body: Record<string, unknown>): unknown;
}

/** What one provider folder contributes: its text formats, its converters and its non-text formats. */
export interface FormatContribution {
  readonly specs?: readonly FormatSpec[];
  /** Text converters `<caller>-<upstream>`, streams included. */
  readonly converters?: readonly FormatConverter[];
  /** Body-only converters of the non-text modes (embeddings). */
  readonly bodyConverters?: readonly BodyConverter[];
  readonly bodyFormats?: readonly BodyFormat[];
}

export class ProvidersNotLoadedError extends Error {
  constructor(what: string) {
    super(`${what} was read before the provider folders were loaded: await loadProviders() (relay/adapters/registry.ts) first`);
    this.name = 'ProvidersNotLoadedError';
  }
}

const SPECS = new Map<WireFormat, FormatSpec>();
const key = (from: WireFormat, to: WireFormat) => `${from}>${to}`;
const BY_PAIR = new Map<string, BodyConverter>();
/** Text converters, registered or composed through OpenAI chat (the composed ones added on first use). */
const TEXT = new Map<string, FormatConverter>();
const BODY_FORMATS = new Map<WireFormat, BodyFormat>();
/** Which folder registered each entry, for the error naming both sides of a duplicate. */
const OWNER = new Map<string, string>();
let sealed = false;

function claim(entry: string, owner: string): void {
  const before = OWNER.get(entry);
  if (before !== undefined) throw new Error(`${entry} registered twice (by ${before} and ${owner})`);
  OWNER.set(entry, owner);
}

/** Adds a folder's formats and converters; only before `sealFormats` (composed converters are cached from then on). */
export function registerFormats(owner: string, c: FormatContribution): void {
  if (sealed) throw new Error(`formats of ${owner} registered after the registry was sealed`);
  for (const s of c.specs ?? []) {
    claim(`format ${s.name}`, owner);
    SPECS.set(s.name, s);
  }
  for (const conv of [...(c.converters ?? []), ...(c.bodyConverters ?? [])]) {
    claim(`converter ${key(conv.from, conv.to)}`, owner);
    BY_PAIR.set(key(conv.from, conv.to), conv);
  }
  for (const conv of c.converters ?? []) TEXT.set(key(conv.from, conv.to), conv);
  for (const f of c.bodyFormats ?? []) {
    claim(`body format ${f.name}`, owner);
    BODY_FORMATS.set(f.name, f);
  }
}

/** Every provider folder registered: from now on a miss means "no such format or converter". */
export function sealFormats(): void {
  sealed = true;
}

registerFormats('relay/formats', { specs: [openAIChat, openAICompletions, openAIResponses], converters: [responsesOpenAI] });

/** OpenAI's own formats and the rerank shape are the hub's: answered without any provider loaded. */
const isHubFormat = (f: WireFormat): boolean => f.startsWith('openai-') || f === 'rerank';

/** Throws when a provider format is looked up before the providers were registered. */
function requireLoaded(...formats: WireFormat[]): void {
  if (!sealed && formats.some((f) => !isHubFormat(f))) throw new ProvidersNotLoadedError(`format ${formats.join(' → ')}`);
}

export function specOf(format: WireFormat): FormatSpec | undefined {
  const spec = SPECS.get(format);
  if (!spec) requireLoaded(format);
  return spec;
}

/** The text converter of a pair: registered, else composed through OpenAI chat (built once). */
export function streamConverterFor(from: WireFormat, to: WireFormat): FormatConverter | undefined {
  const k = key(from, to);
  const found = TEXT.get(k);
  if (found || from === to) return found;
  requireLoaded(from, to);
  const first = TEXT.get(key(from, 'openai-chat'));
  const second = TEXT.get(key('openai-chat', to));
  if (!first || !second) return undefined;
  const composed = composeThroughChat(first, second, openAIChat);
  TEXT.set(k, composed);
  return composed;
}

export function converterFor(from: WireFormat, to: WireFormat): BodyConverter | undefined {
  return BY_PAIR.get(key(from, to)) ?? streamConverterFor(from, to);
}

function bodyFormat(format: WireFormat): BodyFormat | undefined {
  const f = BODY_FORMATS.get(format);
  if (!f) requireLoaded(format);
  return f;
}

/** An error body in the caller's format (OpenAI's for every OpenAI-shaped mode). */
export function errorBodyFor(format: WireFormat, err: WireError): Record<string, unknown> {
  const spec = SPECS.get(format) ?? specOf(bodyFormat(format)?.errorsLike ?? format);
  return (spec?.errorBody ?? openAIErrorBody)(err);
}

/** Names the upstream model in a body passed through (model mapping): text formats through their spec, the others by their own rule or `model`. */
export function setBodyModel(format: WireFormat, body: Record<string, unknown>, model: string): void {
  const spec = specOf(format);
  if (spec) {
    spec.setModel?.(body, model);
    return;
  }
  const own = bodyFormat(format)?.setModel;
  if (own) own(body, model);
  else body.model = model;
}

/** The texts an embeddings body embeds, in OpenAI's `input` shape, for local counting. */
export function embeddingsInput(format: WireFormat, body: Record<string, unknown>): unknown {
  const own = bodyFormat(format)?.inputTexts;
  return own ? own(body) : body.input;
}
