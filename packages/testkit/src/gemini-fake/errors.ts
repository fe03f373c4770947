/** Google's status names by HTTP status (ai.google.dev/gemini-api/docs/troubleshooting). */
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const MESSAGES: Record<string, string> = {
  INVALID_ARGUMENT: 'Request contains an invalid argument.',
  UNAUTHENTICATED: 'Request had invalid authentication credentials.',
  PERMISSION_DENIED: 'The caller does not have permission',
  NOT_FOUND: 'Requested entity was not found.',
  RESOURCE_EXHAUSTED: 'Resource has been exhausted (e.g. check quota).',
  INTERNAL: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  UNAVAILABLE: 'The model is overloaded. Please try again later.',
  DEADLINE_EXCEEDED: 'Deadline expired before operation could complete.',
};

export function googleStatusFor(status: number): string {
  return STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

export function defaultMessageFor(googleStatus: string): string {
  return MESSAGES[googleStatus] ?? 'Error.';
}

/** A refusal with Google's error body; `reason` becomes an ErrorInfo detail (API_KEY_INVALID, …). */
export class GeminiError extends Error {
  constructor(
    readonly status: number,
    readonly googleStatus: string,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** 400 INVALID_ARGUMENT, in Google's words. */
export function invalid(message: string): GeminiError {
  return new GeminiError(400, 'INVALID_ARGUMENT', message);
}

/** An unknown field, as Google's JSON parser words it. */
export function unknownName(name: string, at?: string): GeminiError {
  return invalid(`Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`);
}

export function errorJson(e: Pick<GeminiError, 'status' | 'googleStatus' | 'message' | 'reason'>): Record<string, unknown> {
  const error: Record<string, unknown> = { code: e.status, message: e.message, status: e.googleStatus };
  if (e.reason) error.details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.reason, domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }];
  return { error };
}
