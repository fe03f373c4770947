import { describe, expect, it } from 'vitest';
import { CircuitBreaker, RetryBudget, type BreakerEvent } from './circuit-breaker.js';

function breaker(over: Partial<ConstructorParameters<typeof CircuitBreaker>[0]> = {}) {
  let now = 1_000_000;
  const events: BreakerEvent[] = [];
  const b = new CircuitBreaker({ failures: 3, errorRate: 0, minRequests: 10, windowMs: 60_000, backoffMs: 1_000, ...over }, () => now);
  b.onChange = (e) => events.push(e);
  return { b, events, tick: (ms: number) => (now += ms), now: () => now };
}

describe('circuit breaker', () => {
  it('ejects after N consecutive failures; a success in between resets the count', () => {
    const { b, events, now } = breaker();
    b.failure(7);
    b.failure(7);
    b.success(7);
    b.failure(7);
    b.failure(7);
    expect(b.allows(7)).toBe(true);
    b.failure(7);
    expect(b.allows(7)).toBe(false);
    expect(events).toEqual([{ kind: 'eject', channel: 7, until: now() + 1_000 }]);
    // Other channels are untouched.
    expect(b.allows(8)).toBe(true);
  });

  it('lets one probe through after the back-off; its success restores, its failure doubles the back-off', () => {
    const { b, events, tick, now } = breaker();
    for (let i = 0; i < 3; i++) b.failure(1);
    tick(1_000);
    expect(b.allows(1)).toBe(true);
    b.picked(1);
    // Only the probe: the next selection skips the channel while it is out.
    expect(b.allows(1)).toBe(false);
    b.failure(1);
    expect(events.at(-1)).toEqual({ kind: 'eject', channel: 1, until: now() + 2_000 });
    tick(1_999);
    expect(b.allows(1)).toBe(false);
    tick(1);
    b.picked(1);
    b.success(1);
    expect(events.at(-1)).toEqual({ kind: 'restore', channel: 1 });
    expect(b.allows(1)).toBe(true);
    // Restored at the first back-off again.
    for (let i = 0; i < 3; i++) b.failure(1);
    expect(events.at(-1)).toEqual({ kind: 'eject', channel: 1, until: now() + 1_000 });
  });

  it('a probe that never reports frees the channel after 30 s', () => {
    const { b, tick } = breaker();
    for (let i = 0; i < 3; i++) b.failure(2);
    tick(1_000);
    b.picked(2);
    expect(b.allows(2)).toBe(false);
    tick(30_001);
    expect(b.allows(2)).toBe(true);
  });

  it('ejects by error rate over a window once it has enough answers', () => {
    const { b } = breaker({ failures: 0, errorRate: 0.5, minRequests: 10 });
    for (let i = 0; i < 4; i++) {
      b.success(3);
      b.failure(3);
    }
    // 8 answers: below the minimum, however bad.
    expect(b.allows(3)).toBe(true);
    b.success(3);
    b.failure(3);
    expect(b.allows(3)).toBe(false);
  });

  it("another node's ejection and restoration apply here", () => {
    const { b, now } = breaker();
    b.applyRemote({ kind: 'eject', channel: 9, until: now() + 5_000 });
    expect(b.allows(9)).toBe(false);
    expect(b.ejected()).toEqual(new Map([[9, now() + 5_000]]));
    b.applyRemote({ kind: 'restore', channel: 9 });
    expect(b.allows(9)).toBe(true);
  });

  it('does nothing when both triggers are off', () => {
    const { b, events } = breaker({ failures: 0, errorRate: 0 });
    for (let i = 0; i < 100; i++) b.failure(4);
    expect(b.allows(4)).toBe(true);
    expect(events).toEqual([]);
  });
});

describe('retry budget', () => {
  it('allows retries up to the share of requests, with a floor, per window', () => {
    let now = 0;
    const budget = new RetryBudget({ ratio: 0.2, minPerWindow: 2, windowMs: 10_000 }, () => now);
    for (let i = 0; i < 50; i++) budget.request();
    let allowed = 0;
    for (let i = 0; i < 50; i++) if (budget.tryRetry()) allowed++;
    expect(allowed).toBe(10);
    expect(budget.refused).toBe(40);
    now += 10_000;
    // A quiet window still gets its floor.
    budget.request();
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([true, true, false]);
  });

  it('is unlimited at 0 %', () => {
    const budget = new RetryBudget({ ratio: 0, minPerWindow: 0, windowMs: 10_000 });
    for (let i = 0; i < 20; i++) expect(budget.tryRetry()).toBe(true);
  });
});
