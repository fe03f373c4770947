import type { ServerResponse } from 'node:http';
import type { OpenAIErrorBody, RequestContext } from './context.js';
import { documentedError } from './documented.js';
import { sleep, waitForAbort } from './util.js';

/** Headers OpenAI sends on every reply that clients or gateways may look at. */
function baseHeaders(ctx: Pick<RequestContext, 'state'>): Record<string, string> {
  return { 'x-request-id': `req_fake${ctx.state.nextRequestId()}`, 'openai-processing-ms': '1' };
}

/** Sends an OpenAI error object (in the documented fields). Errors are never shaped by stream faults. */
export function sendError(ctx: Pick<RequestContext, 'res' | 'state'>, status: number, error: OpenAIErrorBody, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: documentedError(error) });
  ctx.res.writeHead(status, {
    ...baseHeaders(ctx),
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  ctx.res.end(body);
}

/**
 * Sends a complete (non-stream) reply, honouring the silence / disconnect faults: 0 chunks acts
 * before the status line, N > 0 after the status line and the first half of the body.
 */
export async function sendPayload(ctx: RequestContext, contentType: string, payload: Buffer | string, status = 200): Promise<void> {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const { res, fault } = ctx;
  const cut = fault?.disconnectAfterChunks ?? fault?.silenceAfterChunks;
  if (cut === 0) {
    if (fault?.disconnectAfterChunks === 0) res.socket?.destroy();
    else await waitForAbort(ctx.signal);
    return;
  }
  res.writeHead(status, { ...baseHeaders(ctx), 'content-type': contentType, 'content-length': String(bytes.length) });
  if (cut === undefined) {
    res.end(bytes);
    return;
  }
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
  if (fault?.disconnectAfterChunks !== undefined) {
    // Let the partial body reach the client before the reset, as a real mid-body failure would.
    await sleep(20, ctx.signal);
    res.socket?.destroy();
  } else {
    await waitForAbort(ctx.signal);
  }
}

/** Sends a JSON reply; with `malformedJson` the body is cut so it does not parse. */
export function sendJson(ctx: RequestContext, value: unknown): Promise<void> {
  let text = JSON.stringify(value);
  if (ctx.fault?.malformedJson) text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  return sendPayload(ctx, 'application/json', text);
}

function write(res: ServerResponse, chunk: string, signal: AbortSignal): Promise<void> {
  if (res.write(chunk)) return Promise.resolve();
  // Respect backpressure so long benchmark streams keep memory flat.
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A frame that no JSON parser accepts, for the `malformedJson` stream fault. */
export const MALFORMED_SSE_PAYLOAD = '{"id":"broken","object":"chat.completion.chunk","choices":[{"delta":{"content":';

/**
 * Streams SSE `data:` frames (payload strings, JSON already encoded; the caller adds `[DONE]`),
 * applying the frame-level faults; with `named`, each frame also names its event (its `type`). Frames are pulled lazily so long streams cost no memory.
 */
export async function sendSse(ctx: RequestContext, frames: Iterable<string>, opts: { named?: boolean } = {}): Promise<void> {
  const { res, fault, signal } = ctx;
  res.writeHead(200, {
    ...baseHeaders(ctx),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  const delay = fault?.chunkDelayMs ?? ctx.state.chunkDelayMs;
  let written = 0;
  let first = true;
  for (const payload of withMalformed(frames, fault?.malformedJson === true)) {
    if (signal.aborted || res.destroyed) return;
    if (fault?.disconnectAfterChunks !== undefined && written >= fault.disconnectAfterChunks) {
      // Give the written frames time to leave the kernel buffer before the reset.
      await sleep(20, signal);
      res.socket?.destroy();
      return;
    }
    if (fault?.silenceAfterChunks !== undefined && written >= fault.silenceAfterChunks) {
      await waitForAbort(signal);
      return;
    }
    if (!first && delay > 0 && !(await sleep(delay, signal))) return;
    first = false;
    // Named events (the Responses API): `event: <type>` before the data, as OpenAI sends them.
    const name = opts.named ? /^\{"type":"([\w.]+)"/.exec(payload)?.[1] : undefined;
    await write(res, name ? `event: ${name}\ndata: ${payload}\n\n` : `data: ${payload}\n\n`, signal);
    written += 1;
  }
  res.end();
}

function* withMalformed(frames: Iterable<string>, malformed: boolean): Generator<string> {
  let index = 0;
  for (const frame of frames) {
    yield frame;
    // After the role frame, so a client has already seen a valid stream start.
    if (malformed && index === 0) yield MALFORMED_SSE_PAYLOAD;
    index += 1;
  }
}
