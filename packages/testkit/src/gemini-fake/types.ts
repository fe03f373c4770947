import type { IncomingHttpHeaders } from 'node:http';

/**
 * A fault to inject into the fake's replies, for the whole instance (`setFault`) or one request
 * (header `x-fake-fault: <JSON>`). Error replies carry Google's error body
 * `{"error":{"code","message","status","details"}}`.
 */
export interface FakeGeminiFault {
  /** Reply with this HTTP status and Google's error body (e.g. 429, 503, 400). */
  status?: number;
  /** `error.status`; by default the one Google documents for the HTTP status (429 → RESOURCE_EXHAUSTED). */
  googleStatus?: string;
  /** `error.message`; a realistic default per status otherwise. */
  message?: string;
  /** `retry-after` header (seconds) sent with the error reply. */
  retryAfter?: number;
  /** Stream only: after N chunks, send an `{"error":…}` chunk (503 UNAVAILABLE unless `status` says otherwise) and end. */
  errorAfterEvents?: number;
  /** Stream only: destroy the socket after N chunks (a mid-stream connection reset). */
  disconnectAfterEvents?: number;
  /** Delay between stream chunks. */
  chunkDelayMs?: number;
  /** Apply to the first N matching requests only. */
  times?: number;
}

export interface FakeGeminiOptions {
  port?: number;
  host?: string;
  /** When set, the key (`x-goog-api-key` or `?key=`) must be one of these, else 400 API_KEY_INVALID. */
  apiKeys?: string[];
  /** Words of a text reply (= text chunks = candidates tokens); default 5. */
  chunkCount?: number;
  chunkDelayMs?: number;
  /** Prompt tokens reported as served from the context cache (`cachedContentTokenCount`); default 0. */
  cachedTokens?: number;
  /** Models served by `GET /{version}/models`. */
  models?: string[];
  fault?: FakeGeminiFault | null;
  maxRecordedRequests?: number;
}

export interface GeminiRecordedRequest {
  method: string;
  /** Path without the query, e.g. `/v1beta/models/gemini-2.0-flash:streamGenerateContent`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when absent or not JSON). */
  body: unknown;
  /** `{model}` and `{method}` of a `models/{model}:{method}` call. */
  model?: string;
  action?: string;
  fault?: FakeGeminiFault;
  /** The fake refused the request (HTTP status, Google status and message). */
  rejected?: { status: number; googleStatus: string; message: string };
  receivedAt: number;
  /** The connection closed before the reply finished. */
  closedEarly?: boolean;
}

export interface FakeGemini {
  /** Origin, e.g. `http://127.0.0.1:39145` (a channel base_url; the SDK's baseUrl). */
  url: string;
  port: number;
  requests: GeminiRecordedRequest[];
  reset(): void;
  setFault(fault: FakeGeminiFault | null): void;
  close(): Promise<void>;
}
