import type { JobLogger } from '../jobs/scheduler.js';

/** A logger that keeps what it was told, so tests can assert on a failure's context. */
export function captureLogger() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const log: JobLogger = { info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}
