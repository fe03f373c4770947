import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Why a relay request was shed before any work was done for it. */
export type OverloadReason = 'concurrency' | 'lag';

export interface OverloadSettings {
  /** RELAY_MAX_CONCURRENT: relay requests (streams included) one node serves at once; 0 = no limit. */
  maxConcurrent: number;
  /** RELAY_MAX_EVENT_LOOP_LAG_MS: new requests are shed while the event loop runs this late; 0 = off. */
  maxLagMs: number;
}

/** How often the event loop's delay is read; a reading covers the interval before it. */
const SAMPLE_MS = 250;

/**
 * Per-node load shedding for the relay (issue 38 item 5). Past the concurrency limit, or while the
 * event loop lags past its limit, a new relay request is answered 503 with `Retry-After` before
 * its token is looked at or its body read, so what is in flight keeps its share of the process and
 * the console API (which does not pass through here) keeps answering. Nothing is reserved or
 * charged for a shed request.
 */
export class OverloadGuard {
  private inFlight = 0;
  private lag = 0;
  private histogram: IntervalHistogram | null = null;
  private timer: NodeJS.Timeout | null = null;
  readonly shed: Record<OverloadReason, number> = { concurrency: 0, lag: 0 };

  constructor(readonly settings: OverloadSettings) {}

  /** Starts reading the event loop's delay (only when a lag limit is set). */
  start(): void {
    if (this.settings.maxLagMs <= 0 || this.timer) return;
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.histogram?.disable();
    this.histogram = null;
  }

  /** The worst delay of the last interval, in ms: one long block is what starves every request. */
  private sample(): void {
    const h = this.histogram;
    if (!h) return;
    this.lag = h.max / 1e6;
    h.reset();
  }

  /** The event loop's delay as last read (ms). */
  get lagMs(): number {
    return this.lag;
  }

  get active(): number {
    return this.inFlight;
  }

  /**
   * Why a new request is shed now, or null. Only authenticated requests take a slot (`enter`), so a
   * caller without a valid key cannot fill the node's slots, however many connections it opens.
   */
  check(): OverloadReason | null {
    const { maxConcurrent, maxLagMs } = this.settings;
    if (maxConcurrent > 0 && this.inFlight >= maxConcurrent) {
      this.shed.concurrency++;
      return 'concurrency';
    }
    if (maxLagMs > 0 && this.lag > maxLagMs) {
      this.shed.lag++;
      return 'lag';
    }
    return null;
  }

  /** Takes a slot; the caller calls `release` exactly once, when its response closes. */
  enter(): void {
    this.inFlight++;
  }

  release(): void {
    if (this.inFlight > 0) this.inFlight--;
  }

  /** Seconds a shed caller should wait: a slot frees within a second or two; a lag passes with it. */
  retryAfterSec(reason: OverloadReason): number {
    return reason === 'lag' ? Math.max(1, Math.ceil(this.lag / 1000)) : 1;
  }
}
