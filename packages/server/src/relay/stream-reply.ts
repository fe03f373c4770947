import type { StreamTransformer } from './adapters/types.js';
import { usageQuota } from './billing/pricing.js';
import type { RuntimeChannel } from './channel-cache.js';
import type { WireError } from './formats/types.js';
import { serverMessage } from '@modelgate/shared';
import { localError } from './relay-error.js';
import { completionScreen, type CompletionScreen } from './sensitive/sensitive-filter.js';
import { hijack, rawHeaders } from './relay-reply.js';
import { failure, type Attempt, type Run } from './relay-run.js';
import { meterAllows } from './relay-reserve.js';
import { settle } from './relay-settle.js';
import { pumpStream, SSE_HEADERS } from './stream-pump.js';
import { bufferedUsage, countedStreamUsage } from './usage-count.js';

/**
 * Streams: events are converted and forwarded as they come; the bill is settled before the
 * closing frames (`[DONE]`, `message_stop`, …) go out.
 */
export async function streamReply(run: Run, ch: RuntimeChannel, body: AsyncIterable<Buffer>, abort: AbortController, sentAt: number, t: StreamTransformer, retryable: (status: number) => boolean): Promise<Attempt> {
  hijack(run.reply);
  const observer = run.ctx.relay.observer;
  observer.streamOpened();
  try {
    return await streamTo(run, ch, body, abort, sentAt, t, retryable);
  } finally {
    observer.streamClosed();
  }
}

async function streamTo(run: Run, ch: RuntimeChannel, body: AsyncIterable<Buffer>, abort: AbortController, sentAt: number, t: StreamTransformer, retryable: (status: number) => boolean): Promise<Attempt> {
  const raw = run.reply.raw;
  let gone = false;
  const onClose = () => {
    if (!raw.writableFinished) {
      gone = true;
      abort.abort();
    }
  };
  raw.on('close', onClose);
  const writeHead = () => {
    // Every caller's stream is SSE but a Gemini caller's without `alt=sse` (one JSON array).
    if (!raw.headersSent) raw.writeHead(200, rawHeaders(run.requestId, t.writer.contentType ? { ...SSE_HEADERS, 'content-type': t.writer.contentType } : SSE_HEADERS));
  };
  const screen = completionScreen(run.ctx.options);
  const out = await pumpStream(body, raw, t, {
    startedAt: run.startedAt,
    writeHead,
    clientGone: () => gone,
    meter: run.meter ? (text) => meterAllows(run, text) : undefined,
    screen: screen ? (text) => screenAllows(run, screen, text) : undefined,
    queueLength: run.ctx.options.num('StreamCacheQueueLength'),
  });
  // Spend limit reached, a sensitive answer stopped, or the upstream failed: stop reading it (it may still be generating and billing us).
  if (out.broken === 'limit' || out.broken === 'sensitive' || out.upstreamError) abort.abort();
  if (out.broken === 'upstream' && out.forwarded === 0) {
    raw.off('close', onClose);
    // Nothing reached the client: another channel may still answer.
    const e = out.upstreamError;
    if (e) return failure(e.status, e.type, e.code, e.message, retryable(e.status), { ...e, retryable: retryable(e.status), disablesChannel: false });
    return failure(502, 'new_api_error', 'stream_broken', 'the upstream closed the stream before sending data', true);
  }
  // Billing rule for broken streams (docs/relay-billing.md): the upstream's final usage, else the
  // prompt (the upstream's provisional count, or counted) plus the completion actually forwarded.
  const usage = out.usage && out.usageFinal ? out.usage : await countedStreamUsage(run.input, out.completionText, out.maxToolCalls, out.usage);
  await settle(run, ch, usage, usageQuota(run.price, usage), out.firstEventMs, Date.now() - sentAt);
  raw.off('close', onClose);
  if (gone || raw.destroyed) return { ok: true };
  writeHead();
  if (out.broken === 'upstream') {
    const e: WireError = out.upstreamError ?? { status: 502, type: 'new_api_error', code: 'stream_broken', param: null, message: 'the upstream stream broke off' };
    raw.end(t.writer.fail({ ...e, message: `${e.message} (request id: ${run.requestId})` }));
  } else if (out.broken === 'limit') {
    const message = `${localError(run.lang, 403, 'RELAY_SPEND_LIMIT_REACHED').message} (request id: ${run.requestId})`;
    raw.end(t.writer.fail({ status: 403, type: 'insufficient_quota', code: 'insufficient_quota', param: null, message }));
  } else if (out.broken === 'sensitive') {
    const words = (run.logOther?.sensitive_words as string[] | undefined) ?? [];
    const message = `${serverMessage('RELAY_SENSITIVE_COMPLETION', run.lang).replace('{words}', words.join(','))} (request id: ${run.requestId})`;
    raw.end(t.writer.fail({ status: 400, type: 'new_api_error', code: 'sensitive_words_detected', param: null, message }));
  } else {
    raw.end(t.writer.end({ usage, reported: out.usageFinal }));
  }
  return { ok: true };
}

/** Records the answer's sensitive words in the log; false when the answer must stop here. */
export function screenAllows(run: Run, screen: CompletionScreen, text: string): boolean {
  const words = screen.feed(text);
  if (!words.length) return true;
  const seen = (run.logOther?.sensitive_words as string[] | undefined) ?? [];
  run.logOther = { ...run.logOther, sensitive_words: [...seen, ...words] };
  return !screen.stop;
}

/** Binary replies (speech): bytes pass through; the bill (known up front) is settled before the end. */
export async function binaryReply(run: Run, ch: RuntimeChannel, body: AsyncIterable<Buffer>, contentType: string, abort: AbortController, sentAt: number): Promise<Attempt> {
  hijack(run.reply);
  const raw = run.reply.raw;
  const onClose = () => {
    if (!raw.writableFinished) abort.abort();
  };
  raw.on('close', onClose);
  raw.writeHead(200, rawHeaders(run.requestId, { 'content-type': contentType || 'application/octet-stream' }));
  let broken = false;
  try {
    for await (const chunk of body) {
      if (!raw.write(chunk)) await new Promise<void>((r) => { raw.once('drain', r); raw.once('close', r); });
    }
  } catch {
    broken = true;
  }
  const usage = await bufferedUsage(run.input, undefined, Buffer.alloc(0));
  await settle(run, ch, usage, usageQuota(run.price, usage), -1000, Date.now() - sentAt);
  raw.off('close', onClose);
  if (broken) raw.destroy();
  else raw.end();
  return { ok: true };
}
