/**
 * Wire formats and the pieces that convert between them (docs/architecture.md#formats). A format
 * knows its own shape (model and max-token fields, usage, stream events, error body); a converter
 * `<from>-<to>` turns a caller's request in `from` into an upstream request in `to` and the
 * upstream's reply and stream back. Nothing here knows a channel type.
 */
import type { Lang, Usage } from '@modelgate/shared';

/** Formats of text generation: a caller may speak any of them, an upstream one or more. */
/**
 * Wire formats a provider folder adds for itself, declared in that folder by declaration merging
 * (`declare module '<path>/formats/types.js' { interface ProviderTextFormats { 'cohere-chat': true } }`
 * beside its converter), so adding a provider's own format touches only its folder. Here only the
 * formats callers may speak (the ingress routes read them) and OpenAI's.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by provider folders (declaration merging)
export interface ProviderTextFormats {}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by provider folders (declaration merging)
export interface ProviderFormats {}

export type TextFormat = 'openai-chat' | 'openai-completions' | 'anthropic-messages' | 'gemini' | 'openai-responses' | keyof ProviderTextFormats;

/** Every wire format an adapter can declare for a mode; the non-text ones are OpenAI's own or a provider's (`ProviderFormats`). */
export type WireFormat =
  | TextFormat
  | keyof ProviderFormats
  | 'openai-embeddings'
  | 'openai-images'
  /** multipart/form-data uploads, forwarded as bytes (the model field rewritten when mapped). */
  | 'openai-image-edits'
  | 'openai-image-variations'
  /** The Realtime API's JSON events over a WebSocket, passed through frame by frame. */
  | 'openai-realtime'
  | 'openai-speech'
  | 'openai-transcriptions'
  | 'openai-translations'
  | 'openai-moderations'
  /** Gemini `:batchEmbedContents`. */
  | 'gemini-embeddings'
  /** Gemini `:embedContent` (a caller format: sent upstream as a one-request batch). */
  | 'gemini-embed-content'
  /** `{model,query,documents,top_n,return_documents}` → `{results:[{index,relevance_score,document?}]}` (Jina, Cohere v1, SiliconCloud). */
  | 'rerank';

/** One upstream stream event after its framing was decoded (SSE here; other framings decode to the same). */
export interface UpstreamEvent {
  event: string | undefined;
  data: string;
}

/** An error to tell the caller, in whatever format it speaks. */
export interface WireError {
  status: number;
  type: string;
  code: string | null;
  param: string | null;
  message: string;
}

/** What one upstream event means for billing and for the pipeline, read once per event. */
export interface EventFacts {
  /** The parsed `data` (an object), shared with the writer so it is parsed once. */
  json: Record<string, unknown> | undefined;
  /** Completion text the event carries (content, reasoning, tool names and arguments), for counting and metering. */
  text: string;
  /** Tool calls started in this event (+7 tokens each when counting locally, reference §3.4). */
  toolCalls: number;
  /** Usage reported so far, when this event reports some. */
  usage?: Usage;
  /** The usage is the final count (not a provisional one such as Anthropic's `message_start`). */
  usageFinal?: boolean;
  /** The upstream failed inside the stream (an `error` event after HTTP 200). */
  error?: WireError;
}

export interface StreamReader {
  read(ev: UpstreamEvent): EventFacts;
}

/** What the writer needs to close a stream after the bill was settled. */
export interface StreamEnd {
  /** The usage that was billed. */
  usage: Usage;
  /** The upstream reported a final usage itself (no synthesised usage chunk is needed). */
  reported: boolean;
}

/** Upstream events → frames of the caller's format, incrementally: nothing is buffered beyond one event. */
export interface StreamWriter {
  /** The reply's content type when the caller's stream is not SSE (Gemini's JSON-array stream). */
  readonly contentType?: string;
  /** The frames to forward for this event now ('' for none: held back or dropped). */
  write(ev: UpstreamEvent, facts: EventFacts): string;
  /** The closing frames, written after settlement (usage chunk, `[DONE]`, `message_stop`, …). */
  end(e: StreamEnd): string;
  /** The closing frame of a stream that broke off or reached its spend limit. */
  fail(err: WireError): string;
}

/** What a conversion needs to know about the call. */
export interface ConvertContext {
  lang: Lang;
  /** The model sent upstream (after the channel's model mapping). */
  model: string;
  /** The model the caller named, echoed in converted replies. */
  callerModel: string;
  /** The caller asked for a usage chunk at the end of an OpenAI stream. */
  clientWantsUsage: boolean;
  requestId: string;
  /** The caller asked for a stream (some formats say so in the URL, not the body). */
  stream: boolean;
  /** A Gemini caller's stream without `alt=sse`: one JSON array written element by element. */
  jsonArray?: boolean;
  /** The caller's parsed body, for the few reply details it decides (an embedding's encoding). */
  callerBody?: Record<string, unknown> | null;
  /**
   * Fetches an http(s) image for an upstream that takes images inline only (the pipeline's
   * SSRF-guarded client); rejects with a 400 naming `field` and the reason. Absent: such URLs are refused.
   */
  fetchImage?(url: string, field: string): Promise<{ mimeType: string; data: string }>;
  /** Fetches a conversion started; the request body is written once they settled. */
  pending?: Array<Promise<unknown>>;
  /**
   * Paths of what the caller sent that the conversion left out although it means something somewhere
   * (`context_management`, `tools.3(web_search)`): told back in `x-modelgate-dropped` and the log's
   * `other.dropped` (docs/providers.md "Conversion policy"). Filled through `drop()` (shared/wire.ts).
   */
  dropped?: string[];
}

/** A converter of request and reply bodies between a caller format and an upstream format. */
export interface BodyConverter {
  readonly from: WireFormat;
  readonly to: WireFormat;
  /** The upstream body for a caller body; refuses what `to` cannot express with a 400 in the caller's format. */
  request(body: Record<string, unknown>, cx: ConvertContext): Record<string, unknown>;
  /** A non-stream upstream reply in the caller's format. */
  response(json: Record<string, unknown>, cx: ConvertContext): Record<string, unknown>;
  /** Writes the billed usage into a converted reply, for upstreams that report none (counted locally). */
  withUsage?(reply: Record<string, unknown>, usage: Usage): void;
  /** The usage an upstream reply of a non-text mode reports (text formats read it through their spec). */
  usage?(json: Record<string, unknown>): Usage | undefined;
}

/** A converter between a caller's text format and an upstream's (`relay/formats/<from>-<to>/`), streams included. */
export interface FormatConverter extends BodyConverter {
  readonly from: TextFormat;
  readonly to: TextFormat;
  stream(cx: ConvertContext): StreamWriter;
}

/** What a text format knows about itself. */
export interface FormatSpec {
  readonly name: TextFormat;
  /** Names the upstream model in a body (absent where the model travels in the URL). */
  setModel?(body: Record<string, unknown>, model: string): void;
  /**
   * Caps the reply at `n` tokens (a clamped reservation, the model's output limit), keeping a
   * reasoning budget the body sets strictly below `n`. Call only with `n` ≥ `minMaxTokens`.
   */
  setMaxTokens(body: Record<string, unknown>, n: number, model: string): void;
  /** The reply cap a body asks for, if it sets one. */
  maxTokens(body: Record<string, unknown>): number | undefined;
  /**
   * The smallest cap this body can be served with (a reasoning budget has a documented floor and
   * must stay below the cap); undefined when any cap ≥ 1 will do.
   */
  minMaxTokens?(body: Record<string, unknown>, model: string): number | undefined;
  /**
   * Whether a stream of this format carries usage only when asked (`stream_options`): then the
   * edit that asks for it (or removes the field when the upstream cannot take it). Returns true
   * when the body changed.
   */
  streamUsage?(body: Record<string, unknown>, ask: boolean): boolean;
  /** Usage of a non-stream reply. */
  usage(json: Record<string, unknown>): Usage | undefined;
  /** Completion text of a non-stream reply, for local counting. */
  responseText(json: Record<string, unknown>): string;
  /** A caller's body in the OpenAI chat shape the local counter reads (absent: it is OpenAI chat). */
  promptAsChat?(body: Record<string, unknown>): Record<string, unknown>;
  /** An error carried by a 200 reply (some OpenAI-compatible vendors), if any. */
  embeddedError?(json: Record<string, unknown>): boolean;
  reader(): StreamReader;
  /** The writer for a stream whose upstream speaks this very format: events pass as they came. */
  passthrough(cx: ConvertContext): StreamWriter;
  /** The error body of this format. */
  errorBody(err: WireError): Record<string, unknown>;
}
