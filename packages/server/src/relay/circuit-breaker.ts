/**
 * Per-channel circuit breaking and a retry budget (issue 38 item 4), apart from auto-disable:
 * auto-disable switches a channel off in the database until an admin or the channel test turns
 * it back on, for answers that say the channel itself is broken (a revoked key, no balance); the
 * breaker takes a channel out of selection for a short back-off after the upstream fails
 * repeatedly (5xx, timeouts, refused connections), then lets one request probe it. Ejections are
 * shared with the other nodes over the cluster bus (Redis pub/sub, or the primary with WORKERS > 1).
 */

export interface BreakerSettings {
  /** Consecutive failures that eject a channel (CHANNEL_BREAKER_FAILURES); 0 = not by count. */
  failures: number;
  /** Failed share (0..1) of a window's answers that ejects a channel (CHANNEL_BREAKER_ERROR_RATE); 0 = not by rate. */
  errorRate: number;
  /** Answers a window needs before its rate counts. */
  minRequests: number;
  windowMs: number;
  /** First back-off (CHANNEL_BREAKER_BACKOFF); doubled on each failed probe, up to 10 times it. */
  backoffMs: number;
}

interface ChannelState {
  consecutive: number;
  windowStart: number;
  total: number;
  failed: number;
  /** Ejected until then (ms); 0 = closed. */
  openUntil: number;
  /** The current back-off; doubles when a probe fails. */
  backoffMs: number;
  /** A half-open probe is in flight since then (ms; 0 = none): no other request is sent until it answers. */
  probeAt: number;
}

/** A probe that never reports (its request was not sent after all, or runs long) frees the channel after this. */
const PROBE_TIMEOUT_MS = 30_000;

export type BreakerEvent = { kind: 'eject'; channel: number; until: number } | { kind: 'restore'; channel: number };

export class CircuitBreaker {
  private readonly states = new Map<number, ChannelState>();
  /** Called for each ejection and restoration decided here, to tell the other nodes. */
  onChange: (e: BreakerEvent) => void = () => undefined;

  constructor(
    readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.settings.failures > 0 || this.settings.errorRate > 0;
  }

  private state(id: number): ChannelState {
    let s = this.states.get(id);
    if (!s) this.states.set(id, (s = { consecutive: 0, windowStart: this.now(), total: 0, failed: 0, openUntil: 0, backoffMs: this.settings.backoffMs, probeAt: 0 }));
    return s;
  }

  /** Whether selection may pick channel `id` now: closed, or half-open with no probe in flight. */
  allows(id: number): boolean {
    const s = this.states.get(id);
    if (!s || s.openUntil === 0) return true;
    const now = this.now();
    return s.openUntil <= now && (s.probeAt === 0 || now - s.probeAt > PROBE_TIMEOUT_MS);
  }

  /** Ejected channels and until when (ms): what a test or a debugging session reads. */
  ejected(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [id, s] of this.states) if (s.openUntil > 0) out.set(id, s.openUntil);
    return out;
  }

  /** Selection picked `id`: if its back-off is over, this request is the probe. */
  picked(id: number): void {
    const s = this.states.get(id);
    if (s && s.openUntil > 0 && s.openUntil <= this.now()) s.probeAt = this.now();
  }

  success(id: number): void {
    // Successes count toward a rate only; without one, a channel that never failed needs no state.
    const s = this.settings.errorRate > 0 ? this.state(id) : this.states.get(id);
    if (!s) return;
    this.count(s, false);
    s.consecutive = 0;
    if (s.openUntil > 0) {
      s.openUntil = 0;
      s.probeAt = 0;
      s.backoffMs = this.settings.backoffMs;
      this.onChange({ kind: 'restore', channel: id });
    }
  }

  failure(id: number): void {
    if (!this.enabled) return;
    const s = this.state(id);
    this.count(s, true);
    s.consecutive++;
    if (s.openUntil > 0) {
      // A failed probe (or a request that was already on its way): back off longer.
      if (s.probeAt > 0) {
        s.probeAt = 0;
        s.backoffMs = Math.min(s.backoffMs * 2, this.settings.backoffMs * 10);
        this.open(id, s);
      }
      return;
    }
    const { failures, errorRate, minRequests } = this.settings;
    const byCount = failures > 0 && s.consecutive >= failures;
    const byRate = errorRate > 0 && s.total >= minRequests && s.failed / s.total >= errorRate;
    if (byCount || byRate) this.open(id, s);
  }

  private open(id: number, s: ChannelState): void {
    s.openUntil = this.now() + s.backoffMs;
    this.onChange({ kind: 'eject', channel: id, until: s.openUntil });
  }

  private count(s: ChannelState, failed: boolean): void {
    const now = this.now();
    if (now - s.windowStart >= this.settings.windowMs) {
      s.windowStart = now;
      s.total = 0;
      s.failed = 0;
    }
    s.total++;
    if (failed) s.failed++;
  }

  /** Another node ejected `id` until `until` (ms since the epoch). */
  applyRemote(e: BreakerEvent): void {
    const s = this.state(e.channel);
    if (e.kind === 'eject') {
      if (e.until > s.openUntil) s.openUntil = e.until;
      s.probeAt = 0;
    } else if (s.openUntil > 0) {
      s.openUntil = 0;
      s.probeAt = 0;
      s.consecutive = 0;
      s.backoffMs = this.settings.backoffMs;
    }
  }
}

export interface RetryBudgetSettings {
  /** Retries may be at most this share of requests (RETRY_BUDGET_PERCENT / 100); 0 = no budget. */
  ratio: number;
  /** Retries always allowed per window, so a quiet node still retries (RETRY_BUDGET_MIN). */
  minPerWindow: number;
  windowMs: number;
}

/**
 * At most `ratio` of requests are retries (plus a small floor), counted over a rolling window:
 * when every channel fails, retries stop multiplying the load an outage puts on the upstreams.
 */
export class RetryBudget {
  private windowStart: number;
  private requests = 0;
  private retries = 0;
  /** Retries refused by the budget since start (read by tests). */
  refused = 0;

  constructor(
    readonly settings: RetryBudgetSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  private roll(): void {
    const now = this.now();
    if (now - this.windowStart >= this.settings.windowMs) {
      this.windowStart = now;
      this.requests = 0;
      this.retries = 0;
    }
  }

  request(): void {
    this.roll();
    this.requests++;
  }

  /** Takes one retry from the budget; false when it is spent. */
  tryRetry(): boolean {
    if (this.settings.ratio <= 0) return true;
    this.roll();
    if (this.retries >= Math.max(this.settings.minPerWindow, Math.floor(this.requests * this.settings.ratio))) {
      this.refused++;
      return false;
    }
    this.retries++;
    return true;
  }
}
