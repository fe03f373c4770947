/**
 * The adapter contract, version 3 (docs/architecture.md#adapters). An adapter knows one kind of
 * upstream: the wire format it speaks per mode, how to build (and sign) a request from the
 * caller's, how to read the reply and the stream back into the caller's format, its usage, and
 * how to classify its errors. Conversions between formats live once under `relay/formats/` (the
 * hub) or in the provider's folder; an adapter composes them. It never touches the client socket,
 * the database or billing.
 *
 * Changelog (bump CONTRACT_VERSION whenever an adapter written for the old shape would no longer
 * compile or would behave differently; the registry refuses any other version):
 * - 1 (a21b501): `url`/`headers`/`prepareBody`/`parseError` per call, OpenAI wire only, a `stream` flag.
 * - 2 (ea1a94c): wire formats per mode (`formats`, `upstreamFormat`), `buildRequest` from the
 *   caller's body with a `ConvertContext`, `sign` after the body is final, `convertResponse` and
 *   `streamTransformer` into the caller's format, `classifyError(status, upstreamStatus, body)`,
 *   model lists. Then changed five times without a bump:
 *   - ead662d: `buildRequest` may return a promise (images fetched for inline-only upstreams);
 *   - b9908f5: the `rerank` mode, `upstreamFormat(…, model)`, the required `isStreamReply`,
 *     `classifyError(…, headers)`, `SigningError` thrown by `sign`;
 *   - 6d7c40a: `UpstreamError.staleCredentials`, `UpstreamCall.userId`, the optional `balance` query;
 *   - 41a176e: the `image-edits`, `image-variations` and `realtime` modes, optional `transport` and
 *     `followUp`;
 *   - a767320, ac76df2, 3abca78 (additive): `UpstreamCall.outboundAllow`, `ChannelTarget.guard`,
 *     `RequestInput.refuseBelow`.
 * - 3: providers register themselves. A folder `relay/adapters/<slug>/` with an `adapter` module
 *   exporting `adapters` (and optionally `formats`, its wire formats and converters) is discovered
 *   by `loadProviders()` (registry.ts), which every relaying entry point awaits; nothing outside the
 *   folder lists it. Channel types are named through `ChannelType` from @modelgate/shared.
 */
import type { Usage } from '@modelgate/shared';
import type { IpMatcher } from '../../http/ip-list.js';
import type { UpstreamGuard } from '../../net/upstream-guard.js';
import type { ConvertContext, StreamReader, StreamWriter, UpstreamEvent, WireError, WireFormat } from '../formats/types.js';

/** Inbound operations: each has a billing rule; `chat` is served in several formats. */
export type RelayMode =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'images'
  /** `/v1/images/edits` (multipart: image file(s), optional mask, prompt), billed per image like generations. */
  | 'image-edits'
  /** `/v1/images/variations` (multipart: one image), billed per image like generations. */
  | 'image-variations'
  | 'speech'
  | 'transcriptions'
  | 'translations'
  | 'moderations'
  /** Jina/Cohere-shaped `/v1/rerank` (Jina, Cohere, SiliconCloud). */
  | 'rerank'
  /**
   * `GET /v1/realtime` WebSocket: the adapter's request gives the upstream URL (http(s), dialled as
   * ws(s)) and its auth headers; frames pass through unchanged (relay/realtime/).
   */
  | 'realtime';

/** OpenAI's own modes: what an OpenAI-wire vendor serves unless it says otherwise (rerank is not one). */
export const ALL_MODES: readonly RelayMode[] = [
  'chat',
  'completions',
  'embeddings',
  'images',
  'image-edits',
  'image-variations',
  'speech',
  'transcriptions',
  'translations',
  'moderations',
];

/** The OpenAI path suffix of each mode (after `/v1`). */
export const MODE_PATH: Record<RelayMode, string> = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  images: '/images/generations',
  'image-edits': '/images/edits',
  'image-variations': '/images/variations',
  speech: '/audio/speech',
  transcriptions: '/audio/transcriptions',
  translations: '/audio/translations',
  moderations: '/moderations',
  rerank: '/rerank',
  realtime: '/realtime',
};

/** The format of each mode's OpenAI route. */
export const MODE_FORMAT: Record<RelayMode, WireFormat> = {
  chat: 'openai-chat',
  completions: 'openai-completions',
  embeddings: 'openai-embeddings',
  images: 'openai-images',
  'image-edits': 'openai-image-edits',
  'image-variations': 'openai-image-variations',
  speech: 'openai-speech',
  transcriptions: 'openai-transcriptions',
  translations: 'openai-translations',
  moderations: 'openai-moderations',
  rerank: 'rerank',
  realtime: 'openai-realtime',
};

/** What an adapter needs to know about the channel it is sending through. */
export interface ChannelTarget {
  id: number;
  type: number;
  key: string;
  /** The channel's base_url, or '' for the adapter default. */
  baseUrl: string;
  /** Type-specific: Azure api-version, Custom nothing, … */
  other: string;
  organization: string;
  setting: Record<string, unknown>;
  /**
   * Set when no root placed where this channel's requests go (a non-root admin did, or the row
   * predates the record): every connection to its upstream goes through this guard, which checks
   * the address it connects to (net/upstream-guard.ts). Absent: the relay's plain pool.
   */
  guard?: UpstreamGuard;
}

/** Normalised usage: one definition, beside the cost formula that prices it. */
export type { Usage } from '@modelgate/shared';

/** An upstream failure as the adapter classifies it. */
export interface UpstreamError extends WireError {
  /** Another channel may answer: the pipeline retries while retries remain. */
  retryable: boolean;
  /** The channel's credentials or account are dead: auto-disable applies. */
  disablesChannel: boolean;
  /**
   * A cached credential (an OAuth access token) was refused and the adapter dropped it: the
   * pipeline tries this channel once more, which fetches a fresh one, before judging the error.
   */
  staleCredentials?: boolean;
}

/**
 * Thrown by `sign` when credentials could not be turned into a signed request (a refused OAuth
 * token exchange, a key that cannot sign): the pipeline answers it as the upstream error it carries.
 */
export class SigningError extends Error {
  constructor(readonly upstream: UpstreamError) {
    super(upstream.message);
    this.name = 'SigningError';
  }
}

/** An upstream reply's headers (lower-case), for the few errors named in a header (Bedrock's `x-amzn-errortype`). */
export type ReplyHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One attempt as the adapter sees it. */
export interface UpstreamCall {
  ch: ChannelTarget;
  mode: RelayMode;
  /** The caller's format and the upstream's for this attempt (equal: bytes pass through). */
  inbound: WireFormat;
  upstream: WireFormat;
  /** The upstream model (after the channel's model mapping). */
  model: string;
  stream: boolean;
  /** The caller's request headers (lower-case), for the few an adapter forwards. */
  clientHeaders: Readonly<Record<string, string | string[] | undefined>>;
  /** The ModelGate user the call is made for (an upstream that keeps per-end-user state, Dify's `user`); absent for channel tests. */
  userId?: number;
  /**
   * The private ranges the operator lets guarded fetches reach (OutboundAllowedRanges), for a side
   * fetch to a URL that came with a key rather than from the admin (a Vertex key's token_uri);
   * absent: none.
   */
  outboundAllow?: () => IpMatcher;
}

/** The caller's request and the changes the pipeline needs in the upstream one. */
export interface RequestInput {
  /** Parsed JSON body; null for multipart uploads, which are forwarded as bytes. */
  body: Record<string, unknown> | null;
  raw: Buffer;
  contentType: string;
  /** multipart: where the `model` value sits in `raw`, for model mapping. */
  multipartModel?: { start: number; end: number };
  /** The model the caller named. */
  callerModel: string;
  /** A clamped reservation: the most reply tokens to ask for. */
  maxTokens?: number;
  /**
   * With `maxTokens`: the low-balance error for a body that cannot be served within it (its
   * reasoning budget needs a cap of at least `minTokens`); thrown before any upstream call.
   */
  refuseBelow?: (minTokens: number) => Error;
  cx: ConvertContext;
}

export interface UpstreamRequest {
  url: string;
  /** Headers beyond Content-Type / Accept, which the pipeline sets. */
  headers: Record<string, string>;
  body: Buffer | string;
}

/** Limits and cancellation of one `transport` exchange. */
export interface TransportOptions {
  /** Fires when the client left or the pipeline stopped reading: the upstream connection is closed. */
  signal?: AbortSignal;
  /** The most to wait for the first reply frame, ms (none when absent or 0); a timeout rejects with code `UND_ERR_HEADERS_TIMEOUT`, as undici's header timeout does. */
  firstFrameTimeoutMs?: number;
  /** The most silence between two frames, ms (STREAMING_TIMEOUT). */
  idleTimeoutMs?: number;
}

/** An upstream reply in HTTP terms, whatever carried it. */
export interface TransportReply {
  statusCode: number;
  headers: ReplyHeaders;
  /** The bytes `streamTransformer` decodes (streams) or the JSON body (`convertResponse`); a broken stream throws while read. */
  body: AsyncIterable<Buffer>;
}

/** A non-stream reply read by the adapter. */
export interface ConvertedReply {
  /** The reply in the caller's format; undefined when the upstream's bytes are the answer. */
  body: Record<string, unknown> | undefined;
  /** The usage the upstream reported. */
  usage: Usage | undefined;
  /** Completion text, for local counting when no usage came. */
  text(): string;
  /** Writes the usage billed (counted locally) into `body`, for upstreams that report none. */
  withUsage?(usage: Usage): void;
}

/** Incremental stream conversion: framing → events → facts → the caller's frames. */
export interface StreamTransformer {
  events(body: AsyncIterable<Buffer>): AsyncIterable<UpstreamEvent>;
  reader: StreamReader;
  writer: StreamWriter;
}

/** A follow-up GET's answer (task polling): status 0 when the request itself failed, `text` then saying why. */
export interface FollowUpReply {
  status: number;
  json: Record<string, unknown> | undefined;
  text: string;
}

/** Where a channel's upstream lists its models (the console's "fetch models"). */
export interface ModelListRequest {
  url: string;
  headers: Record<string, string>;
}

/** The contract version every registered adapter implements (see the changelog above). */
export const CONTRACT_VERSION = 3;

export interface Adapter {
  /** The contract this adapter implements; the registry refuses any other. */
  readonly contract: typeof CONTRACT_VERSION;
  /** Folder name, also used in test names. */
  readonly slug: string;
  readonly types: readonly number[];
  readonly defaultBaseUrl: string;
  /** Upstream wire formats per mode, the preferred first; a mode not listed is refused (501). */
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>>;
  /** The modes of `formats`. */
  readonly modes: ReadonlySet<RelayMode>;
  /** The upstream honours `stream_options.include_usage`; otherwise the field is removed (OpenAI formats). */
  readonly streamOptions: boolean;
  /** Built-in model list, shown by `GET /api/models` for this channel type. */
  readonly models: readonly string[];
  /**
   * The format to send a caller's `inbound` request in, or undefined when no converter reaches one.
   * `model` (the upstream model) matters to upstreams hosting several families (Vertex: Gemini and Claude).
   */
  upstreamFormat(mode: RelayMode, inbound: WireFormat, model?: string): WireFormat | undefined;
  /**
   * URL, headers and body of one attempt; a request `upstream` cannot express is refused (400).
   * A promise only when the conversion must fetch something first (`ConvertContext.fetchImage`).
   */
  buildRequest(call: UpstreamCall, input: RequestInput): UpstreamRequest | Promise<UpstreamRequest>;
  /** Signs the final bytes (SigV4, TC3, HMAC URLs); the identity for most upstreams. */
  sign(req: UpstreamRequest, call: UpstreamCall): UpstreamRequest | Promise<UpstreamRequest>;
  /**
   * Optional: sends the signed request over something other than an HTTP POST (iFlytek Spark's
   * WebSocket) and answers it HTTP-shaped. The pipeline (relay attempts and the channel test) then
   * reads the reply exactly as an HTTP one: a non-2xx status through `classifyError`, a stream
   * through `streamTransformer` (chosen by `isStreamReply`), a JSON body through `isErrorReply` and
   * `convertResponse`. Absent: the pipeline POSTs `req` over its HTTP pool.
   */
  transport?(req: UpstreamRequest, call: UpstreamCall, opts: TransportOptions): Promise<TransportReply>;
  /** Reads a non-stream JSON reply; text modes only. */
  convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined;
  /**
   * A 200 reply that only started the work (DashScope's async image task): the adapter follows it up
   * with GETs until the final reply, which is then judged and read as usual; its wait is bounded.
   * Absent: the first reply is the answer.
   */
  followUp?(call: UpstreamCall, json: Record<string, unknown>, get: (url: string, headers: Record<string, string>) => Promise<FollowUpReply>): Promise<Record<string, unknown>>;
  /** Whether a 200 JSON reply is really an error. */
  isErrorReply(call: UpstreamCall, json: Record<string, unknown>): boolean;
  /** The stream transformer of one streamed reply. */
  streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer;
  /** Whether a 2xx reply with this content type is the stream `streamTransformer` reads (SSE for most; Bedrock's binary event stream). */
  isStreamReply(contentType: string): boolean;
  /** Whether a failure with this (mapped) status may be retried on another channel. */
  retryable(status: number): boolean;
  /**
   * Classifies an error reply. `status` is after the channel's status_code_mapping (what the
   * client sees and retries judge); `upstreamStatus` is what the upstream sent. `status` undefined:
   * an error carried in a 2xx body, whose status is the one the provider's error code names
   * (Baidu's and Tencent's code tables), else 500.
   */
  classifyError(status: number | undefined, upstreamStatus: number, body: string, headers?: ReplyHeaders): UpstreamError;
  /** The GET that lists the upstream's models, one page at a time. */
  modelListRequest(ch: ChannelTarget, pageToken?: string): ModelListRequest;
  /** A model list reply → model ids, and the next page's token when there is one. */
  readModelList(json: unknown): { models: string[]; next?: string };
  /** How the provider reports the channel's balance; absent: "not supported by this provider". */
  readonly balance?: BalanceQuery;
}

/**
 * How a provider reports the money left on a channel's account (providers-china-and-tasks §7):
 * one or more GETs, each possibly depending on the replies before it, and the balance read from
 * their JSON. An adapter without one answers "not supported by this provider".
 */
export interface BalanceQuery {
  /** The next GET after `replies` (the JSON objects answered so far), or undefined when all were made. */
  request(ch: ChannelTarget, replies: readonly Record<string, unknown>[]): ModelListRequest | undefined;
  /** The balance in USD from every reply, or the provider's refusal in its own words. */
  read(replies: readonly Record<string, unknown>[], cx: BalanceContext): number | { error: string };
}

/** What a balance in another currency is converted with. */
export interface BalanceContext {
  ch: ChannelTarget;
  /** Yuan per dollar: the Price option, the rate the console shows amounts in CNY with. */
  cnyPerUsd: number;
}
