import { providerFixture, providerFixtureNames } from '../provider-fixtures.js';

/**
 * Anthropic's documented errors, read from the provider's fixtures
 * (server/src/relay/adapters/anthropic/fixtures/error.*.json): each one's status, `error.type` and
 * message. The converter reads the same files in its tests, so the fake and the adapter cannot
 * disagree on a type or a status.
 */
interface DocumentedError {
  status: number;
  type: string;
  message: string;
}

const DOCUMENTED: DocumentedError[] = providerFixtureNames('anthropic')
  .filter((n) => n.startsWith('error.'))
  .map((n) => {
    const fx = providerFixture('anthropic', n);
    const { error } = fx.body as { error: { type: string; message: string } };
    return { status: fx.status!, type: error.type, message: error.message };
  });

/** The error type Anthropic documents for a status (529 → overloaded_error). */
export function errorTypeFor(status: number): string {
  return DOCUMENTED.find((e) => e.status === status)?.type ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The documented message of an error type. */
export function defaultMessageFor(type: string): string {
  return DOCUMENTED.find((e) => e.type === type)?.message ?? 'Error.';
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

/** `{"type":"error","error":{"type","message"},"request_id"}` (docs.claude.com/en/api/errors). */
export function errorBody(type: string, message: string, requestId: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId });
}
