import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { JobLogger } from '../jobs/scheduler.js';
import { LOG_REDACT } from '../log/logger.js';

/** A logger that keeps what it was told, so tests can assert on a failure's context. */
export function captureLogger() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const log: JobLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}

/** A pino logger (a server's `log`) whose JSON lines the test can read. */
export function capturePino(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level, redact: LOG_REDACT }, sink), lines };
}
