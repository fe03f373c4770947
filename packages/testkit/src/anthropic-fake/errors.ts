/** Anthropic's error types by status (docs.anthropic.com/en/api/errors). */
const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const MESSAGES: Record<string, string> = {
  invalid_request_error: 'Invalid request.',
  authentication_error: 'invalid x-api-key',
  billing_error: 'Your credit balance is too low to access the Anthropic API.',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'Not found.',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  api_error: 'Internal server error',
  timeout_error: 'Request timed out.',
  overloaded_error: 'Overloaded',
};

export function errorTypeFor(status: number): string {
  return TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function defaultMessageFor(type: string): string {
  return MESSAGES[type] ?? 'Error.';
}

/** A refusal with Anthropic's error body. */
export class AnthropicError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** 400 invalid_request_error naming a field, in Anthropic's words (`max_tokens: Field required`). */
export function invalid(field: string, problem: string): AnthropicError {
  return new AnthropicError(400, 'invalid_request_error', field ? `${field}: ${problem}` : problem);
}

export function errorBody(type: string, message: string, requestId: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId });
}
