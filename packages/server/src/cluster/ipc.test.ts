import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { captureLogger } from '../test-support/capture-logger.js';
import type { Invalidation } from './invalidation.js';
import { InvalidationBus } from './invalidation.js';
import { IpcRateLimitStore } from './ipc-rate-limit-store.js';
import { PrimaryLink, type IpcEndpoint } from './ipc.js';
import { PrimaryHub } from './primary-hub.js';

/**
 * The IPC between a cluster primary and its workers, over an in-memory channel that clones every
 * message as node:cluster's 'advanced' serialization does (the multi-process behaviour is in
 * workers.api.test.ts).
 */

/** One worker's channel: `worker` is the primary's handle on it, `endpoint` the worker's `process`. */
class Channel {
  private readonly state = { connected: true };
  readonly worker: EventEmitter & Pick<Worker, 'send' | 'isConnected'>;
  readonly endpoint: EventEmitter & IpcEndpoint;

  constructor() {
    const state = this.state;
    const deliver = (to: EventEmitter) => (message: unknown, _h?: unknown, _o?: unknown, callback?: (err: Error | null) => void) => {
      if (!state.connected) return false;
      setImmediate(() => to.emit('message', structuredClone(message)));
      callback?.(null);
      return true;
    };
    const workerSide = new EventEmitter();
    const primarySide = new EventEmitter();
    this.worker = Object.assign(primarySide, { send: deliver(workerSide) as Worker['send'], isConnected: () => state.connected });
    this.endpoint = Object.defineProperty(Object.assign(workerSide, { send: deliver(primarySide) }), 'connected', { get: () => state.connected });
  }

  /** The primary is gone. */
  cut(): void {
    this.state.connected = false;
    this.endpoint.emit('disconnect');
  }
}

function cluster(n: number) {
  const listening: number[] = [];
  const fatal: string[] = [];
  const hub = new PrimaryHub(captureLogger().log, { listening: (slot) => void listening.push(slot), fatal: (_slot, m) => void fatal.push(m) });
  const channels = Array.from({ length: n }, (_, slot) => {
    const c = new Channel();
    hub.add(slot, c.worker as unknown as Worker);
    return { channel: c, link: new PrimaryLink(c.endpoint, 1000) };
  });
  return { hub, channels, listening, fatal };
}

describe('cluster IPC', () => {
  it('gives every worker one rate-limit store: K hits through one worker, and the next through another is refused', async () => {
    const { channels } = cluster(2);
    const [a, b] = channels.map((c) => new IpcRateLimitStore(c.link)) as [IpcRateLimitStore, IpcRateLimitStore];
    const now = Date.now();
    for (let i = 0; i < 3; i++) expect(await a.hit('k', 3, 60_000, now)).toBe(true);
    expect(await b.hit('k', 3, 60_000, now)).toBe(false);
    expect(await b.retryAfterMs('k', 3, 60_000, now + 1000)).toBe(59_000);
    // Infinity (no cap: relay/usage-limits.ts counts tokens so) survives the channel.
    expect(await a.addToMinute('tpm', 500, Infinity, now)).toBe(true);
    expect(await b.minuteUsage('tpm', now)).toBeGreaterThanOrEqual(500);
    expect(await a.acquireSlot('idem:x', 'held', 1, 60_000, now)).toBe(true);
    expect(await b.acquireSlot('idem:x', 'held', 1, 60_000, now)).toBe(false);
    await a.releaseSlot('idem:x', 'held');
    expect(await b.acquireSlot('idem:x', 'held', 1, 60_000, now)).toBe(true);
  });

  it('runs only the store\'s own methods for a worker', async () => {
    const { channels } = cluster(1);
    await expect(channels[0]!.link.call({ mg: 'rl', op: 'sweep', args: [0] })).rejects.toThrow(/unknown rate-limit call sweep/);
    await expect(channels[0]!.link.call({ mg: 'rl', op: 'constructor', args: [] })).rejects.toThrow(/unknown rate-limit call/);
  });

  it('passes an invalidation published on one worker to every other worker, which parses it before applying', async () => {
    const { channels } = cluster(3);
    const seen = channels.map(() => [] as Invalidation[]);
    const buses = channels.map(({ link }, i) => {
      const bus = new InvalidationBus({ apply: (m) => void seen[i]!.push(m), resync: () => undefined }, null, captureLogger().log);
      bus.useWorkerPeers((m) => void link.send({ mg: 'inv', m }));
      link.on('inv', (message) => bus.receive(message.m));
      return bus;
    });
    buses[1]!.publish({ t: 'token', id: 7 });
    // A message that does not parse (a newer or foreign sender) is dropped.
    void channels[1]!.link.send({ mg: 'inv', m: '{"t":"token","id":"7; DROP"}' });
    void channels[1]!.link.send({ mg: 'inv', m: '{"t":"channels"}' });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen[1]).toEqual([{ t: 'token', id: 7 }]);
    expect(seen[0]).toEqual([{ t: 'token', id: 7 }, { t: 'channels' }]);
    expect(seen[2]).toEqual([{ t: 'token', id: 7 }, { t: 'channels' }]);
  });

  it('fails a worker\'s pending and later calls at once when the primary is gone', async () => {
    const { channels } = cluster(1);
    const { channel, link } = channels[0]!;
    const store = new IpcRateLimitStore(link);
    channel.cut();
    await expect(store.hit('k', 1, 1000, Date.now())).rejects.toThrow(/primary is gone/);
    expect(await link.send({ mg: 'listening', port: 1 })).toBe(false);
  });

  it('tells the supervisor which workers listen and which cannot', async () => {
    const { channels, listening, fatal } = cluster(2);
    await channels[1]!.link.send({ mg: 'listening', port: 3000 });
    await channels[0]!.link.send({ mg: 'fatal', message: 'port taken' });
    await new Promise((r) => setTimeout(r, 20));
    expect(listening).toEqual([1]);
    expect(fatal).toEqual(['port taken']);
  });
});
