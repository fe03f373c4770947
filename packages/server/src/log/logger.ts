import { pino, type Logger, type LoggerOptions } from 'pino';
import { LogDestination } from './log-destination.js';

export type { Logger };

const SECRET_FIELDS = ['authorization', 'cookie', '["set-cookie"]', '["x-api-key"]', '["api-key"]', '["x-goog-api-key"]', '["mj-api-secret"]', 'password', 'original_password', 'access_token'];
/** Where the server's log calls put headers and bodies (`req.log.warn({ headers })`, an error's request, …). */
const SECRET_PLACES = ['', 'headers', 'req.headers', 'request.headers', 'res.headers', 'response.headers', 'upstream.headers', 'err.headers', 'body', 'req.body', 'input', 'user'];

/**
 * Credentials never reach a log line: request and upstream headers and password fields at the
 * places the server logs them are replaced by `[Redacted]`. Explicit paths, no wildcards: pino
 * runs the redaction when fastify makes each request's child logger, and wildcard paths cost
 * ≈ 15 × more there (≈ 2.5 µs per request against 0.17). Stored secrets are sealed in the database
 * and only opened in memory; what an upstream echoes back is masked where it is logged
 * (modules/channels/upstream-failure.ts).
 */
export const LOG_REDACT: LoggerOptions['redact'] = {
  paths: SECRET_PLACES.flatMap((place) => SECRET_FIELDS.map((f) => (place ? `${place}${f.startsWith('[') ? f : `.${f}`}` : f))),
};

/**
 * The one logger of a process (docs/architecture.md#logging): pino, JSON lines on stdout at
 * LOG_LEVEL. Fastify uses it for every request (`req.log` carries the request id as `reqId`), and
 * jobs, the cluster bus and start-up write to the same stream. Lines go out through a
 * LogDestination, which never blocks the process on a reader that stopped reading or is gone;
 * `logger.flush(cb)` waits for queued lines at most a second.
 */
export function createLogger(level: string, base: Record<string, unknown> = {}, destination: LogDestination = new LogDestination(1)): Logger {
  return pino({ level, base: { pid: process.pid, ...base }, redact: LOG_REDACT }, destination);
}
