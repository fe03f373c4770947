import type { IncomingHttpHeaders } from 'node:http';

/**
 * A fault to inject into the fake's responses. Set one for the whole instance with
 * `FakeOpenAI.setFault()` / the `fault` option, or for a single request with the request header
 * `x-fake-fault: <JSON of this object>`. A header fault wins over the instance fault.
 *
 * Several kinds may be combined (e.g. `delayMs` + `status`). Order of effect:
 * `delayMs` → `status` (error reply) → the endpoint's normal reply shaped by
 * `malformedJson` / `omitUsage` / `chunkDelayMs` / `silenceAfterChunks` / `disconnectAfterChunks`.
 *
 * "Chunks" are SSE `data:` frames for streams (the role frame, content frames, the finish frame,
 * the usage frame and `[DONE]` each count as one). For non-stream replies, `0` acts before any byte
 * (no status line at all) and any `N > 0` acts after the status line and the first half of the body.
 * A stream always sends its status line and headers before the first frame.
 */
export interface FakeFault {
  /** Reply with this HTTP status and an OpenAI error object instead of the normal reply. */
  status?: number;
  /** `error.message` of the error reply; a realistic default per status is used otherwise. */
  message?: string;
  /** `error.type` of the error reply (e.g. `requests`, `server_error`, `insufficient_quota`). */
  type?: string;
  /** `error.code` of the error reply (e.g. `rate_limit_exceeded`); `null` is sent when absent. */
  code?: string | null;
  /** `error.param` of the error reply. */
  param?: string | null;
  /** `Retry-After` header value (seconds, or an HTTP date) sent with the error reply. */
  retryAfter?: number | string;
  /**
   * Raw body to send with `status` instead of the OpenAI error object, to mimic non-OpenAI
   * intermediaries (an nginx HTML 502, a plain-text 503). Sent with `contentType`.
   */
  body?: string;
  /** Content-Type of `body`; default `text/plain; charset=utf-8`. */
  contentType?: string;
  /** Wait this long before the first byte (status line) of the reply. */
  delayMs?: number;
  /** Override the instance `chunkDelayMs` for this reply (slow streams). */
  chunkDelayMs?: number;
  /** Stop writing after N chunks and keep the connection open until the client or `close()` ends it. */
  silenceAfterChunks?: number;
  /** Destroy the TCP socket after N chunks (a mid-stream connection reset). */
  disconnectAfterChunks?: number;
  /**
   * 200 with a body that is not valid JSON (non-stream), or one extra unparsable `data:` frame
   * inserted right after the role frame (stream; the other frames are unchanged).
   */
  malformedJson?: boolean;
  /** Leave `usage` out of JSON replies and send no usage frame in streams, even with `include_usage`. */
  omitUsage?: boolean;
  /**
   * Apply the fault to the first N matching requests only, then heal. Instance faults count
   * matching requests since `setFault`; header faults count per distinct header value since the
   * last `reset()`.
   */
  times?: number;
  /** Only requests for these models match (from the JSON body, multipart `model` or `/v1/models/{id}`). */
  models?: string[];
  /** Only requests to these paths match, written with the `/v1` prefix, e.g. `/v1/chat/completions`. */
  paths?: string[];
}

/** Account state served by the legacy billing endpoints (`/v1/dashboard/billing/*`). */
export interface FakeBalance {
  /** `hard_limit_usd` of the subscription; default 100. */
  hardLimitUsd: number;
  /** `soft_limit_usd`; default = hardLimitUsd. */
  softLimitUsd?: number;
  /** `system_hard_limit_usd`; default = hardLimitUsd. */
  systemHardLimitUsd?: number;
  /** `total_usage` of the usage endpoint, in cents; default 0. */
  totalUsageCents: number;
  /** `has_payment_method`; default true. */
  hasPaymentMethod: boolean;
  /** `access_until` (unix seconds); default 0. */
  accessUntil: number;
}

export interface FakeOpenAIOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** When set, `Authorization: Bearer <key>` must be one of these, else 401 `invalid_api_key`. */
  apiKeys?: string[];
  /** Content words (= content frames = completion tokens) per chat/completions reply; default 5. */
  chunkCount?: number;
  /** Delay between stream frames; default 0. */
  chunkDelayMs?: number;
  /** Billing endpoint state; missing fields take the defaults documented on `FakeBalance`. */
  balance?: Partial<FakeBalance>;
  /** Model ids served by `/v1/models`; default `DEFAULT_FAKE_MODELS`. */
  models?: string[];
  /** Reject requests for models not in `models` with 404 `model_not_found`, as OpenAI does. Default false. */
  strictModels?: boolean;
  /** Reported as `prompt_tokens_details.cached_tokens` (capped at prompt_tokens); default 0. */
  cachedTokens?: number;
  /** Added to chat completion_tokens and reported as `completion_tokens_details.reasoning_tokens`; default 0. */
  reasoningTokens?: number;
  /**
   * Play the scripted agent session (agent-scenario.ts) on chat completions and Responses: a shell tool
   * call running `echo MG_AGENT_OK`, then text quoting its result. Default false.
   */
  agentScenario?: boolean;
  /** Initial instance fault (same as calling `setFault` right after start). */
  fault?: FakeFault | null;
  /** Keep at most this many recorded requests (oldest dropped) so long benchmarks stay flat; default 10 000. */
  maxRecordedRequests?: number;
}

/** A file part of a multipart/form-data request, without its bytes. */
export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  /** Hex SHA-256 of the part's bytes: tests compare it with what the client sent. */
  sha256: string;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query string, exactly as received (e.g. `/v1/chat/completions`). */
  path: string;
  /** Decoded query parameters. */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when absent or not JSON). */
  body: unknown;
  /** Text fields of a multipart/form-data body. */
  fields?: Record<string, string>;
  /** File parts of a multipart/form-data body. */
  files?: RecordedFile[];
  rawBodyLength: number;
  /** The fault that was applied to this request, if any. */
  fault?: FakeFault;
  /** The `usage` object the fake reported for this request (chat completions and Responses). */
  usage?: unknown;
  receivedAt: number;
  /**
   * True once the connection closed before the fake finished its reply: the caller cancelled
   * (or a `disconnectAfterChunks` fault cut it). Absent while the reply is running or after it completed.
   */
  closedEarly?: boolean;
}

export interface FakeOpenAI {
  /** Origin, e.g. `http://127.0.0.1:39145` (use as a channel base_url). */
  url: string;
  /** `url + '/v1'` (use as the `openai` SDK baseURL). */
  baseURL: string;
  port: number;
  /** Requests received so far, oldest first (including rejected ones). */
  requests: RecordedRequest[];
  /** Forget recorded requests and header-fault counters; clears the instance fault. */
  reset(): void;
  /** Set (or clear with null) the instance-wide fault; restarts its `times` count. */
  setFault(fault: FakeFault | null): void;
  /** Change the billing state served from now on. */
  setBalance(balance: Partial<FakeBalance>): void;
  /** Stop listening, end stalled streams and destroy open connections. */
  close(): Promise<void>;
}
