import { providerFixture, providerFixtureNames } from '../provider-fixtures.js';

type Obj = Record<string, unknown>;

/**
 * Google's documented errors (server/src/relay/adapters/gemini/fixtures/error.*.json) are the
 * fake's templates: each one's HTTP status, Google status, message and details. The adapter's
 * tests read the same files, so the fake and the converter cannot disagree on a status.
 */
interface DocumentedError {
  status: number;
  error: { code: number; message: string; status: string; details?: Obj[] };
}

const DOCUMENTED: DocumentedError[] = providerFixtureNames('gemini')
  .filter((n) => n.startsWith('error.'))
  .map((n) => {
    const fx = providerFixture('gemini', n);
    return { status: fx.status!, error: (fx.body as { error: DocumentedError['error'] }).error };
  });

/** Statuses no fixture documents yet (troubleshooting page). */
const UNDOCUMENTED_STATUS: Record<number, string> = { 401: 'UNAUTHENTICATED' };
/**
 * Generic messages where the documented example words a particular case (its 400 names one
 * missing field), so a fault without a message does not claim that case.
 */
const GENERIC_MESSAGES: Record<string, string> = {
  INVALID_ARGUMENT: 'Request contains an invalid argument.',
  UNAUTHENTICATED: 'Request had invalid authentication credentials.',
  NOT_FOUND: 'Requested entity was not found.',
};

/** The documented (plain, without an ErrorInfo reason) error of a Google status. */
const plainOf = (googleStatus: string) => DOCUMENTED.find((d) => d.error.status === googleStatus && !reasonOf(d.error.details));

function reasonOf(details: Obj[] | undefined): string | undefined {
  const info = details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  return typeof info?.reason === 'string' ? info.reason : undefined;
}

export function googleStatusFor(status: number): string {
  return DOCUMENTED.find((d) => d.status === status)?.error.status ?? UNDOCUMENTED_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

export function defaultMessageFor(googleStatus: string): string {
  return GENERIC_MESSAGES[googleStatus] ?? plainOf(googleStatus)?.error.message ?? 'Error.';
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

/** A documented detail with this error's message and retry delay put in. */
function detailOf(d: Obj, message: string, retryAfter: number | undefined): Obj {
  if (d['@type'] === 'type.googleapis.com/google.rpc.LocalizedMessage') return { ...d, message };
  if (d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo' && retryAfter !== undefined) return { ...d, retryDelay: `${retryAfter}s` };
  return d;
}

/**
 * Google's error body: the documented error of the same reason (API_KEY_INVALID) or Google
 * status, with this code, message and status; its details (ErrorInfo, RetryInfo, Help) kept as
 * documented. A status no fixture documents gets the bare `{code, message, status}`.
 */
export function errorJson(e: Pick<GeminiError, 'status' | 'googleStatus' | 'message' | 'reason'> & { retryAfter?: number }): Obj {
  const template = e.reason ? DOCUMENTED.find((d) => reasonOf(d.error.details) === e.reason) : plainOf(e.googleStatus);
  const error: Obj = { ...(template?.error ?? {}), code: e.status, message: e.message, status: e.googleStatus };
  const details = template?.error.details?.map((d) => detailOf(d, e.message, e.retryAfter));
  if (details) error.details = details;
  else if (e.reason) error.details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.reason, domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }];
  return { error };
}
