import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The one logger of a process (docs/architecture.md#logging): pino, JSON lines on stdout at
 * LOG_LEVEL. Fastify uses it for every request (`req.log` carries the request id as `reqId`), and
 * jobs, the cluster bus and start-up write to the same stream.
 */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { pid: process.pid, ...base } });
}
