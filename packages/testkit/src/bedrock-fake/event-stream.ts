import { crc32 } from 'node:zlib';

/**
 * Encodes one `application/vnd.amazon.eventstream` message (providers-international §5.4): a
 * 12-byte prelude (total length, headers length, prelude CRC32), string headers (type 7), the
 * payload and the CRC32 of everything before it, all big-endian.
 */
export function encodeFrame(headers: Record<string, string>, payload: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const h = Buffer.alloc(1 + n.length + 1 + 2);
    h.writeUInt8(n.length, 0);
    n.copy(h, 1);
    h.writeUInt8(7, 1 + n.length);
    h.writeUInt16BE(v.length, 2 + n.length);
    parts.push(h, v);
  }
  const head = Buffer.concat(parts);
  const total = 12 + head.length + payload.length + 4;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(head.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  head.copy(frame, 12);
  payload.copy(frame, 12 + head.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4);
  return frame;
}

/** A `chunk` event carrying one Anthropic stream event, base64 in `bytes`, with Bedrock's padding field `p`. */
export function chunkFrame(event: Record<string, unknown>, pad: string): Buffer {
  const payload = { bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: pad };
  return encodeFrame({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify(payload)));
}

/** An exception message, its payload plain JSON (`{"message"}`, more for some exceptions): it ends the stream. */
export function exceptionFrame(type: string, payload: Record<string, unknown>): Buffer {
  return encodeFrame({ ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, Buffer.from(JSON.stringify(payload)));
}
