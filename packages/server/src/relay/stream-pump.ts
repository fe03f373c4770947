import type { ServerResponse } from 'node:http';
import type { StreamTransformer, Usage } from './adapters/types.js';
import type { WireError } from './formats/types.js';

/** What a relayed stream produced, for billing. */
export interface StreamOutcome {
  /** The last usage the upstream reported, final or provisional. */
  usage: Usage | undefined;
  /** `usage` is the upstream's final count. */
  usageFinal: boolean;
  /** Text of every content / reasoning / tool-call delta read, for local counting. */
  completionText: string;
  /** Most tool calls seen in one event (+7 tokens each when counting locally, reference §3.4). */
  maxToolCalls: number;
  /** Milliseconds from the request start to the first forwarded frame, or -1. */
  firstEventMs: number;
  forwarded: number;
  /**
   * Why the stream ended early, if it did ('limit': the next event would have overspent;
   * 'sensitive': the next event completed a sensitive word and StopOnSensitiveEnabled is on).
   */
  broken?: 'client' | 'upstream' | 'limit' | 'sensitive';
  /** The upstream's own in-stream error, when that is what broke it. */
  upstreamError?: WireError;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Backpressure: wait for the client instead of buffering the whole stream in memory. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const LIMIT = Symbol('limit');
const SENSITIVE = Symbol('sensitive');
const UPSTREAM_ERROR = Symbol('upstream-error');

/**
 * Relays a stream event by event through the adapter's transformer: the upstream's framing is
 * decoded, each event read once for billing facts and written in the caller's format as soon as it
 * arrives (no whole-body buffering). Closing frames are not written here: the pipeline settles
 * the bill first, then asks the writer for them.
 */
export async function pumpStream(
  body: AsyncIterable<Buffer>,
  res: ServerResponse,
  t: StreamTransformer,
  opts: {
    startedAt: number;
    writeHead: () => void;
    clientGone: () => boolean;
    /** Spend metering: false when the event's completion text can no longer be paid for. */
    meter?: (text: string) => Promise<boolean>;
    /** The answer's sensitive-word screen: false when the event must not be forwarded (the stream stops). */
    screen?: (text: string) => boolean;
    /**
     * StreamCacheQueueLength: how many frames may wait in memory for a slow client before the
     * upstream is no longer read (0: wait as soon as the socket's own buffer is full).
     */
    queueLength?: number;
  },
): Promise<StreamOutcome> {
  const out: StreamOutcome = { usage: undefined, usageFinal: false, completionText: '', maxToolCalls: 0, firstEventMs: -1, forwarded: 0 };
  const texts: string[] = [];
  const queue = Math.max(0, opts.queueLength ?? 0);
  /** Frames written while the socket's buffer was already full (queued in memory for the client). */
  let waiting = 0;
  try {
    for await (const ev of t.events(body)) {
      const facts = t.reader.read(ev);
      if (facts.usage) {
        out.usage = facts.usage;
        out.usageFinal = facts.usageFinal === true;
      }
      if (facts.error) {
        out.upstreamError = facts.error;
        throw UPSTREAM_ERROR;
      }
      if (facts.toolCalls > out.maxToolCalls) out.maxToolCalls = facts.toolCalls;
      if (facts.text) {
        if (opts.screen && !opts.screen(facts.text)) throw SENSITIVE;
        if (opts.meter && !(await opts.meter(facts.text))) throw LIMIT;
        texts.push(facts.text);
      }
      const frames = t.writer.write(ev, facts);
      if (!frames || opts.clientGone()) continue;
      if (out.forwarded === 0) {
        out.firstEventMs = Date.now() - opts.startedAt;
        opts.writeHead();
      }
      out.forwarded += 1;
      if (res.write(frames)) waiting = 0;
      else if (++waiting > queue) {
        await drained(res);
        waiting = 0;
      }
    }
  } catch (err) {
    out.broken = err === LIMIT ? 'limit' : err === SENSITIVE ? 'sensitive' : err !== UPSTREAM_ERROR && opts.clientGone() ? 'client' : 'upstream';
  }
  if (!out.broken && opts.clientGone()) out.broken = 'client';
  out.completionText = texts.join('');
  return out;
}
