export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Plain text of a chat message `content` (string, or array of content parts). */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join(' ');
}

/**
 * Resolves after `ms`, or early when `signal` aborts (server close or client gone), so that a
 * delayed or stalled reply never keeps the process alive after `close()`.
 * Returns false when it ended early.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits until `signal` aborts: the "stall forever" of silence faults. */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Deterministic ids: a prefix plus a per-instance counter, so test output is reproducible. */
export function makeId(prefix: string, n: number): string {
  return `${prefix}fake${String(n).padStart(8, '0')}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
