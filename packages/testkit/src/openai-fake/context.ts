import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ParsedMultipart } from './multipart.js';
import type { FakeBalance, FakeFault, RecordedRequest } from './types.js';

/** Instance settings after defaults, plus the mutable state handlers read. */
export interface FakeState {
  chunkCount: number;
  chunkDelayMs: number;
  models: string[];
  strictModels: boolean;
  cachedTokens: number;
  reasoningTokens: number;
  /** The scripted agent session (agent-scenario.ts) answers chat and Responses requests. */
  agentScenario: boolean;
  balance: FakeBalance;
  /** Origin of this fake, used for image URLs it hands out. */
  origin: string;
  /** Next value of the per-instance counter behind object ids (chatcmpl-…, call_…). */
  nextId(): number;
  /** Next value of the counter behind `x-request-id` headers. */
  nextRequestId(): number;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** Request path with a `/v1` prefix added when the client omitted it. */
  route: string;
  query: URLSearchParams;
  /** Parsed JSON body, undefined when the body is not JSON. */
  body: unknown;
  /** True when a JSON body was sent but could not be parsed. */
  bodyInvalid: boolean;
  multipart?: ParsedMultipart;
  fault?: FakeFault;
  /** The recorded request; handlers note the usage they reported on it. */
  record?: RecordedRequest;
  state: FakeState;
  /** Aborts when the server closes or the client goes away: ends delays and stalls. */
  signal: AbortSignal;
}

/** The OpenAI error object shape (https://platform.openai.com/docs/guides/error-codes). */
export interface OpenAIErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly error: OpenAIErrorBody,
  ) {
    super(error.message);
  }
}

export function invalidRequest(message: string, param: string | null = null, code: string | null = null): RequestError {
  return new RequestError(400, { message, type: 'invalid_request_error', param, code });
}

/** OpenAI's reply to a request that lacks a required body field. */
export function missingParam(param: string): RequestError {
  return invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

/**
 * OpenAI refuses `stream_options` on a non-stream request; reproducing that catches a gateway
 * that forces `include_usage` without checking `stream`.
 */
export function checkStreamOptions(body: Record<string, unknown>): void {
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    throw invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
}
