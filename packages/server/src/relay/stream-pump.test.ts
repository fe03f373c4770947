import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { StreamTransformer } from './adapters/types.js';
import { pumpStream } from './stream-pump.js';

/** A client whose socket buffer is always full: every write says "wait for drain". */
class SlowClient extends EventEmitter {
  readonly frames: string[] = [];
  write(frame: string): boolean {
    this.frames.push(frame);
    return false;
  }
}

/** An upstream of `n` events that counts how many the relay has pulled. */
function upstream(n: number) {
  const state = { pulled: 0 };
  const t = {
    events: async function* () {
      for (let i = 0; i < n; i++) {
        state.pulled += 1;
        yield { data: `e${i}` };
      }
    },
    reader: { read: () => ({ toolCalls: 0 }) },
    writer: { write: (ev: { data: string }) => `data: ${ev.data}\n\n` },
  } as unknown as StreamTransformer;
  return { t, state };
}

const tick = () => new Promise((r) => setImmediate(r));

/** StreamCacheQueueLength: how far the relay reads ahead of a slow client. */
describe('pumpStream queue length', () => {
  for (const queue of [0, 3]) {
    it(`reads ${queue} event(s) ahead of a client that is not reading, then waits for it (queue ${queue})`, async () => {
      const client = new SlowClient();
      const { t, state } = upstream(10);
      const done = pumpStream((async function* () {})(), client as unknown as ServerResponse, t, { startedAt: Date.now(), writeHead: () => undefined, clientGone: () => false, queueLength: queue });
      for (let i = 0; i < 5; i++) await tick();
      expect(state.pulled).toBe(queue + 1);
      expect(client.frames).toHaveLength(queue + 1);
      // Each drain lets the next batch through.
      client.emit('drain');
      for (let i = 0; i < 5; i++) await tick();
      expect(client.frames).toHaveLength(Math.min(10, 2 * (queue + 1)));
      while (client.frames.length < 10) {
        client.emit('drain');
        await tick();
      }
      client.emit('drain');
      const out = await done;
      expect(out.forwarded).toBe(10);
      expect(out.broken).toBeUndefined();
    });
  }
});
