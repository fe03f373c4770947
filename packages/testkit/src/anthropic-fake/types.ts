import type { IncomingHttpHeaders } from 'node:http';

/**
 * A fault to inject into the fake's replies, for the whole instance (`setFault`) or one request
 * (header `x-fake-fault: <JSON>`). Error replies carry Anthropic's error body
 * `{"type":"error","error":{"type","message"},"request_id"}`.
 */
export interface FakeAnthropicFault {
  /** Reply with this HTTP status and Anthropic's error body (e.g. 429, 529, 400). */
  status?: number;
  /** `error.type`; by default the type Anthropic documents for the status (529 → overloaded_error). */
  type?: string;
  /** `error.message`; a realistic default per status otherwise. */
  message?: string;
  /** `retry-after` header (seconds) sent with the error reply. */
  retryAfter?: number;
  /** Stream only: after N events, send `event: error` (overloaded_error unless `type` says otherwise) and end. */
  errorAfterEvents?: number;
  /** Stream only: destroy the socket after N events (a mid-stream connection reset). */
  disconnectAfterEvents?: number;
  /** Delay between stream events. */
  chunkDelayMs?: number;
  /** Apply to the first N matching requests only. */
  times?: number;
}

export interface FakeAnthropicOptions {
  port?: number;
  host?: string;
  /** When set, `x-api-key` must be one of these, else 401 authentication_error. */
  apiKeys?: string[];
  /** Words of a text reply (= text_delta events = output tokens); default 5. */
  chunkCount?: number;
  chunkDelayMs?: number;
  /** Prompt tokens reported as read from the prompt cache (`cache_read_input_tokens`); default 0. */
  cacheReadTokens?: number;
  /** Prompt tokens reported as written to the cache (`cache_creation_input_tokens`); default 0. */
  cacheCreationTokens?: number;
  fault?: FakeAnthropicFault | null;
  maxRecordedRequests?: number;
  /**
   * Play the scripted agent session (openai-fake/agent-scenario.ts): a request offering a shell tool
   * (`Bash`, …) with no tool result yet gets one call of it running `echo MG_AGENT_OK`; a request whose
   * last turn carries the tool result gets text quoting it. Default false.
   */
  agentScenario?: boolean;
}

export interface AnthropicRecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when absent or not JSON). */
  body: unknown;
  fault?: FakeAnthropicFault;
  /** The usage the fake reported for this request (Messages replies). */
  usage?: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
  /** The fake refused the request (status and Anthropic error type). */
  rejected?: { status: number; type: string; message: string };
  receivedAt: number;
  /** The connection closed before the reply finished (the caller cancelled, or a disconnect fault). */
  closedEarly?: boolean;
}

export interface FakeAnthropic {
  /** Origin, e.g. `http://127.0.0.1:39145` (a channel base_url; the SDK's baseURL). */
  url: string;
  port: number;
  requests: AnthropicRecordedRequest[];
  reset(): void;
  setFault(fault: FakeAnthropicFault | null): void;
  close(): Promise<void>;
}
