/**
 * What the relay reports as it works, for metrics and tracing (metrics/metrics.ts). The pipeline
 * calls these at fixed points; the default does nothing, so an observer costs nothing when unset.
 */
export interface RelayObserver {
  /** The upstream answered with headers (`ms` after the request was sent). */
  upstreamAnswered(e: { channel: number; status: number; ms: number }): void;
  /** One attempt failed on a channel (the request may still succeed on another). */
  attemptFailed(e: { channel: number; status: number; retryable: boolean }): void;
  /** The request moves on to another channel after a failed attempt. */
  retried(e: { fromChannel: number }): void;
  /** A stream to a client opened (hijacked reply) or ended, however it ended. */
  streamOpened(): void;
  streamClosed(): void;
  /** A request ended with a bill: `firstByteMs` > 0 for streams. */
  settled(e: { route: string; model: string; channel: number; promptTokens: number; completionTokens: number; quota: number; durationMs: number; firstByteMs: number }): void;
  /** Every channel tried failed; the caller got the last error. */
  failed(e: { route: string; model: string; channel: number; status: number }): void;
  /** Refused before any channel was tried (auth, quota, validation, no channel). */
  refused(e: { route: string; status: number }): void;
  channelAutoDisabled(channel: number): void;
}

const nothing = (): void => undefined;

export const NO_RELAY_OBSERVER: RelayObserver = {
  upstreamAnswered: nothing,
  attemptFailed: nothing,
  retried: nothing,
  streamOpened: nothing,
  streamClosed: nothing,
  settled: nothing,
  failed: nothing,
  refused: nothing,
  channelAutoDisabled: nothing,
};
