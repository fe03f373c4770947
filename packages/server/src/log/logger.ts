import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

const SECRET_FIELDS = ['authorization', 'cookie', '["set-cookie"]', '["x-api-key"]', '["api-key"]', '["x-goog-api-key"]', '["mj-api-secret"]', 'password', 'original_password', 'access_token'];

/**
 * Credentials never reach a log line: request and upstream headers (at the top level, one or two
 * levels down: `headers.authorization`, `req.headers.cookie`) and password fields are replaced by
 * `[Redacted]`. Stored secrets are sealed in the database and only opened in memory; what an
 * upstream echoes back is masked where it is logged (modules/channels/upstream-failure.ts).
 */
export const LOG_REDACT: LoggerOptions['redact'] = {
  paths: SECRET_FIELDS.flatMap((f) => {
    const tail = f.startsWith('[') ? f : `.${f}`;
    return [f, `*${tail}`, `*.*${tail}`];
  }),
};

/**
 * The one logger of a process (docs/architecture.md#logging): pino, JSON lines on stdout at
 * LOG_LEVEL. Fastify uses it for every request (`req.log` carries the request id as `reqId`), and
 * jobs, the cluster bus and start-up write to the same stream.
 */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { pid: process.pid, ...base }, redact: LOG_REDACT });
}
