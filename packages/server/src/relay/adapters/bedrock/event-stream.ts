import { crc32 } from 'node:zlib';
import type { UpstreamEvent } from '../../formats/types.js';

/** One decoded `application/vnd.amazon.eventstream` message (providers-international §5.4). */
export interface EventStreamMessage {
  headers: Record<string, string | number | boolean | Buffer>;
  payload: Buffer;
}

/** A frame whose length or CRC does not check out: the rest of the stream cannot be trusted. */
export class EventStreamFrameError extends Error {
  override name = 'EventStreamFrameError';
}

const PRELUDE = 12;
/** Bedrock frames are small; a length beyond this is a corrupted prelude, not a frame to wait for. */
const MAX_FRAME = 16 * 1024 * 1024;

function readHeaders(buf: Buffer): EventStreamMessage['headers'] {
  const out: EventStreamMessage['headers'] = {};
  let i = 0;
  const need = (n: number) => {
    if (i + n > buf.length) throw new EventStreamFrameError('event-stream header runs past its section');
  };
  while (i < buf.length) {
    need(1);
    const nameLen = buf.readUInt8(i);
    i += 1;
    need(nameLen + 1);
    const name = buf.toString('utf8', i, i + nameLen);
    i += nameLen;
    const type = buf.readUInt8(i);
    i += 1;
    switch (type) {
      case 0:
      case 1:
        out[name] = type === 0;
        break;
      case 2:
        need(1);
        out[name] = buf.readInt8(i);
        i += 1;
        break;
      case 3:
        need(2);
        out[name] = buf.readInt16BE(i);
        i += 2;
        break;
      case 4:
        need(4);
        out[name] = buf.readInt32BE(i);
        i += 4;
        break;
      case 5:
      case 8:
        need(8);
        out[name] = Number(buf.readBigInt64BE(i));
        i += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const len = buf.readUInt16BE(i);
        i += 2;
        need(len);
        out[name] = type === 7 ? buf.toString('utf8', i, i + len) : Buffer.from(buf.subarray(i, i + len));
        i += len;
        break;
      }
      case 9:
        need(16);
        out[name] = buf.toString('hex', i, i + 16);
        i += 16;
        break;
      default:
        throw new EventStreamFrameError(`unknown event-stream header type ${type}`);
    }
  }
  return out;
}

/** Decodes one whole frame, checking both CRCs. */
export function decodeFrame(frame: Buffer): EventStreamMessage {
  const total = frame.readUInt32BE(0);
  const headersLen = frame.readUInt32BE(4);
  if (frame.readUInt32BE(8) !== crc32(frame.subarray(0, 8))) throw new EventStreamFrameError('event-stream prelude CRC mismatch');
  if (frame.readUInt32BE(total - 4) !== crc32(frame.subarray(0, total - 4))) throw new EventStreamFrameError('event-stream message CRC mismatch');
  if (PRELUDE + headersLen + 4 > total) throw new EventStreamFrameError('event-stream headers longer than the message');
  return { headers: readHeaders(frame.subarray(PRELUDE, PRELUDE + headersLen)), payload: frame.subarray(PRELUDE + headersLen, total - 4) };
}

/**
 * Splits a byte stream into event-stream messages as the bytes arrive: frames ignore read
 * boundaries, so bytes are held only until the frame named by the current prelude is complete.
 */
export async function* eventStreamMessages(body: AsyncIterable<Buffer>): AsyncGenerator<EventStreamMessage> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= PRELUDE) {
      // Check the prelude before trusting its length: a corrupted length must not make us wait forever.
      if (pending.readUInt32BE(8) !== crc32(pending.subarray(0, 8))) throw new EventStreamFrameError('event-stream prelude CRC mismatch');
      const total = pending.readUInt32BE(0);
      if (total < PRELUDE + 4 || total > MAX_FRAME) throw new EventStreamFrameError(`event-stream frame length ${total} out of range`);
      if (pending.length < total) break;
      const frame = pending.subarray(0, total);
      pending = pending.subarray(total);
      yield decodeFrame(frame);
    }
  }
  if (pending.length) throw new EventStreamFrameError(`event stream ended inside a frame (${pending.length} bytes left)`);
}

/** The Anthropic `error` event an exception or a broken frame becomes, so the reader reports it like any in-stream error. */
function errorEvent(type: string, message: string): UpstreamEvent {
  return { event: 'error', data: JSON.stringify({ type: 'error', error: { type, message } }) };
}

/** Bedrock exception types → the Anthropic error type with the same meaning (and status). */
const EXCEPTION_TYPES: Record<string, string> = {
  throttlingException: 'rate_limit_error',
  validationException: 'invalid_request_error',
  modelTimeoutException: 'timeout_error',
  serviceUnavailableException: 'overloaded_error',
};

/**
 * InvokeModelWithResponseStream → Anthropic stream events: each `chunk` carries one event JSON,
 * base64 in `bytes` (a padding field `p` is ignored). An exception message, or a frame whose CRC
 * fails, ends the stream with an `error` event: what was delivered before it is what gets billed.
 */
export async function* bedrockAnthropicEvents(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
  try {
    for await (const m of eventStreamMessages(body)) {
      const kind = m.headers[':message-type'];
      const text = m.payload.toString('utf8');
      if (kind === 'exception' || kind === 'error') {
        const name = String(m.headers[':exception-type'] ?? m.headers[':error-code'] ?? 'internalServerException');
        let message = text;
        try {
          const j = JSON.parse(text) as { message?: unknown; Message?: unknown };
          message = String(j.message ?? j.Message ?? text);
        } catch {
          // a non-JSON payload is the message itself
        }
        yield errorEvent(EXCEPTION_TYPES[name] ?? 'api_error', `${name}: ${message}`);
        return;
      }
      if (m.headers[':event-type'] !== 'chunk') continue;
      const bytes = (JSON.parse(text) as { bytes?: unknown }).bytes;
      if (typeof bytes !== 'string') continue;
      const data = Buffer.from(bytes, 'base64').toString('utf8');
      const type = (JSON.parse(data) as { type?: unknown }).type;
      yield { event: typeof type === 'string' ? type : undefined, data };
    }
  } catch (err) {
    if (!(err instanceof EventStreamFrameError) && !(err instanceof SyntaxError)) throw err;
    yield errorEvent('api_error', `corrupted Bedrock event stream: ${err.message}`);
  }
}
