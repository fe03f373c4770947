import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { parseObject } from '../../formats/shared/wire.js';
import { sparkError, sparkMerge, sparkStatus } from './formats/spark/index.js';
import type { TransportOptions, TransportReply, UpstreamCall, UpstreamRequest } from '../types.js';

/** Content type of the stream body the transport hands the pipeline: one Spark frame a line. */
export const SPARK_FRAMES_TYPE = 'application/x-ndjson';

/** iFlytek's samples give the upgrade 5 s (reference §3). */
const HANDSHAKE_TIMEOUT_MS = 5000;

/** A pushed sequence of byte chunks read once, as an HTTP body would be; ending with an error makes the reader throw. */
class FrameQueue implements AsyncIterable<Buffer> {
  private items: Buffer[] = [];
  private done = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  push(b: Buffer): void {
    if (this.done) return;
    this.items.push(b);
    this.wake?.();
  }

  end(err?: Error): void {
    if (this.done) return;
    this.done = true;
    this.error = err;
    this.wake?.();
  }

  get ended(): boolean {
    return this.done;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    for (;;) {
      const next = this.items.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.done) {
        if (this.error) throw this.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

async function* once(b: Buffer): AsyncGenerator<Buffer> {
  yield b;
}

function timeoutError(what: string): Error {
  // The code undici gives a header timeout: the pipeline treats both alike (another channel may answer).
  return Object.assign(new Error(`iFlytek Spark: ${what}`), { code: 'UND_ERR_HEADERS_TIMEOUT' });
}

/**
 * One WebSocket per request (reference §3): connect to the signed URL, send the request frame,
 * read frames until `header.status` 2, then close. Answered HTTP-shaped for the pipeline:
 * - the upgrade refused (401/403 on a bad signature or a skewed date): that status and body;
 * - an error code before any text: the code's status with the frame as the body (classified like an HTTP error);
 * - a stream: 200 at the first frame, the frames as NDJSON; a close or an error before the last frame
 *   ends the body with an error (the pipeline fails the caller's stream and bills what was delivered);
 * - no stream: 200 with all frames merged into one frame once the last arrived.
 * The socket is closed when `signal` fires (the client left).
 */
export function sparkTransport(req: UpstreamRequest, call: UpstreamCall, opts: TransportOptions): Promise<TransportReply> {
  return new Promise<TransportReply>((resolve, reject) => {
    // A channel whose target no root placed dials the address its guard checked (node skips a
    // lookup for an IP literal, so the guard judges one in the URL first).
    const guard = call.ch.guard;
    guard?.assertUrl(req.url);
    const ws = new WebSocket(req.url, { handshakeTimeout: HANDSHAKE_TIMEOUT_MS, perMessageDeflate: false, lookup: guard?.lookup });
    const queue = new FrameQueue();
    const frames: Array<Record<string, unknown>> = [];
    let settled = false;
    let timer: NodeJS.Timeout | undefined;

    const cleanup = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const answer = (reply: TransportReply) => {
      if (settled) return;
      settled = true;
      resolve(reply);
    };
    /** Fails the reply not yet answered, or the stream already being read. */
    const fail = (err: Error) => {
      cleanup();
      if (!settled) {
        settled = true;
        reject(err);
      } else queue.end(err);
      ws.terminate();
    };
    const arm = (ms: number | undefined, what: string) => {
      clearTimeout(timer);
      if (ms && ms > 0) timer = setTimeout(() => fail(timeoutError(what)), ms);
    };
    function onAbort() {
      // The signal's own reason: a channel test's timeout stays a TimeoutError, a client that left an AbortError.
      const reason: unknown = opts.signal?.reason;
      fail(reason instanceof Error ? reason : Object.assign(new Error('the client went away'), { name: 'AbortError' }));
    }
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    ws.on('unexpected-response', (upgrade, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        cleanup();
        answer({ statusCode: res.statusCode ?? 502, headers: res.headers, body: once(Buffer.concat(chunks)) });
        upgrade.destroy();
      });
      res.on('error', (err) => fail(err));
    });
    ws.on('open', () => {
      arm(opts.firstFrameTimeoutMs, 'no frame before the timeout');
      ws.send(typeof req.body === 'string' ? req.body : req.body.toString('utf8'));
    });
    ws.on('message', (data: WebSocket.RawData) => {
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8');
      const frame = parseObject(text);
      if (!frame) return fail(new Error('iFlytek Spark sent a frame that is not a JSON object'));
      arm(opts.idleTimeoutMs, 'the stream went silent');
      const err = sparkError(frame);
      const last = sparkStatus(frame) === 2;
      if (err && !settled) {
        // Refused before any text: answered like an HTTP error so it is classified (and retried) as one.
        cleanup();
        answer({ statusCode: err.status, headers: { 'content-type': 'application/json' }, body: once(Buffer.from(text)) });
        ws.close();
        return;
      }
      if (call.stream) {
        answer({ statusCode: 200, headers: { 'content-type': SPARK_FRAMES_TYPE }, body: queue });
        queue.push(Buffer.from(`${text}\n`));
        if (last || err) {
          cleanup();
          queue.end();
          ws.close();
        }
        return;
      }
      frames.push(frame);
      if (last || err) {
        cleanup();
        answer({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: once(Buffer.from(JSON.stringify(sparkMerge(frames)))) });
        ws.close();
      }
    });
    ws.on('close', (code: number) => {
      if (settled && queue.ended) return;
      if (settled && !call.stream) return;
      fail(new Error(`iFlytek Spark closed the connection before the last frame (close code ${code})`));
    });
    ws.on('error', (err: Error) => fail(err));
  });
}
