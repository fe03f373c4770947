import { isDbUnavailable } from '../db/db-unavailable.js';
import { langFromHeader, relayLangFromHeader, SERVER_MESSAGES, serverMessage, type Lang, type ServerMessageCode } from '@modelgate/shared';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';

/**
 * A failure with a stable code. `/api` maps it to `{success:false, message}` with HTTP 200
 * (401 only for a missing or expired session); `detail` is appended to the localised message;
 * `vars` fill the message's `{name}` placeholders.
 */
export class AppError extends Error {
  constructor(
    readonly code: ServerMessageCode,
    readonly httpStatus = 200,
    readonly detail?: string,
    readonly vars?: Readonly<Record<string, string | number>>,
  ) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

/** The answer's language: the console's (`/api`, Chinese unless asked otherwise) or the relay's (English unless asked for Chinese). */
export function requestLang(req: Pick<FastifyRequest, 'url' | 'headers'>): Lang {
  const header = req.headers['accept-language'];
  return req.url.startsWith('/api/') || req.url === '/api' ? langFromHeader(header) : relayLangFromHeader(header);
}

export function localise(err: AppError, req: FastifyRequest): string {
  let base = serverMessage(err.code, requestLang(req));
  if (err.vars) base = base.replace(/\{(\w+)\}/g, (m, name: string) => (err.vars && Object.hasOwn(err.vars, name) ? String(err.vars[name]) : m));
  return err.detail ? `${base}: ${err.detail}` : base;
}

function zodMessage(err: ZodError): string {
  return err.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** The body limit of the request's route in MB, for a 413's message. */
export function bodyLimitMb(req: FastifyRequest): number {
  // Three significant digits: 20, 1.5, and a 64 KB form's 0.0625.
  return Number((req.routeOptions.bodyLimit / (1024 * 1024)).toPrecision(3));
}

/** The localised 413 message of the request's route ("Request body too large, limit (MB): 20"). */
export function bodyTooLargeMessage(req: FastifyRequest): string {
  return localise(new AppError('BODY_TOO_LARGE', 413, String(bodyLimitMb(req))), req);
}

/** What an issue adds to its message: the allowed values, the expected type, or the check's own detail. */
function issueDetail(issue: ZodError['issues'][number]): string {
  const params = (issue as { params?: { detail?: unknown } }).params;
  if (typeof params?.detail === 'string' && params.detail) return params.detail;
  if (issue.code === 'invalid_value') return issue.values.map(String).join(' | ');
  if (issue.code === 'invalid_type') return issue.expected;
  return '';
}

/**
 * The first issue that carries one of our message codes (the shared field checks set it, and the
 * request error map gives zod's own issues one), localised with the field it concerns.
 */
export function zodAppError(err: ZodError): AppError {
  for (const issue of err.issues) {
    const params = (issue as { params?: { code?: unknown } }).params;
    const code = typeof params?.code === 'string' ? params.code : issue.message;
    if (Object.hasOwn(SERVER_MESSAGES, code)) {
      const field = issue.path.join('.');
      const detail = issueDetail(issue);
      const text = [field, detail ? `(${detail})` : ''].filter(Boolean).join(' ');
      return new AppError(code as ServerMessageCode, 200, text || undefined);
    }
  }
  return new AppError('INVALID_PARAMETER', 200, zodMessage(err));
}

/**
 * A database refusing a value the client sent: SQLSTATE class 22 "data exception" (PostgreSQL's
 * 22021 NUL byte, 22003 numeric out of range, 22001 string too long; MySQL reports the same class
 * in sqlState) or MySQL's 1366 incorrect string value. The route schemas should stop these first;
 * this keeps one that slips through from being a 500.
 */
export function isInputDatabaseError(err: unknown): boolean {
  const e = err as { code?: unknown; sqlState?: unknown; errno?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.sqlState === 'string' && e.sqlState.startsWith('22')) return true;
  if (typeof e.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code)) return true;
  return e.errno === 1366;
}

/** The one error → response mapping for the management API. */
export function installApiErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | ZodError | Error, req: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      return reply.status(error.httpStatus).send({ success: false, message: localise(error, req) });
    }
    if (error instanceof ZodError) {
      return reply.status(200).send({ success: false, message: localise(zodAppError(error), req) });
    }
    if (isInputDatabaseError(error)) {
      req.log.warn({ err: error, url: req.url }, 'database refused a client value');
      return reply.status(200).send({ success: false, message: localise(new AppError('DB_INPUT_REJECTED'), req) });
    }
    const fe = error as FastifyError;
    if (fe.statusCode === 429) {
      return reply.status(429).send({ success: false, message: localise(new AppError('TOO_MANY_REQUESTS', 429), req) });
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // A real 413 (not the envelope's usual 200): proxies and scripts stop retrying the same upload.
      const message = localise(new AppError('BODY_TOO_LARGE', 413, String(bodyLimitMb(req))), req);
      // An unknown `/v1` path lands here too (its body is parsed before the 404): OpenAI clients get their shape.
      if (req.url.startsWith('/v1/')) return reply.status(413).send({ error: { message, type: 'invalid_request_error', param: null, code: 'request_too_large' } });
      return reply.status(413).send({ success: false, message });
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      // Malformed JSON, unsupported media type: the client's fault, said plainly.
      const e = new AppError('INVALID_PARAMETER', 200, fe.message);
      return reply.status(200).send({ success: false, message: localise(e, req) });
    }
    if (isDbUnavailable(error)) {
      // A database outage: the console cannot work, the relay serves on from its caches (ledger/outage).
      req.log.warn({ err: error, url: req.url }, 'console request refused: the database is unavailable');
      return reply.status(503).header('retry-after', '5').send({ success: false, message: localise(new AppError('DB_UNAVAILABLE', 503), req) });
    }
    if ((error as { code?: unknown }).code === 'MG_RESPONSE_SHAPE') {
      // Only when responses are checked (tests): say what is wrong instead of a bare "internal".
      return reply.status(500).send({ success: false, message: error.message });
    }
    req.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ success: false, message: localise(new AppError('INTERNAL', 500), req) });
  });
}
