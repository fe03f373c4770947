import { encodeFrame } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { bedrockAnthropicEvents, eventStreamMessages } from './event-stream.js';
import { bedrockModelId } from './model-ids.js';
import { signAws } from './sign.js';

const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-east-1' };
const request = {
  method: 'POST',
  url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: '{"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}',
};
const date = new Date(Date.UTC(2024, 0, 1));
const sig = (h: Record<string, string>) => /Signature=([0-9a-f]{64})/.exec(h.authorization ?? '')?.[1];

async function* pieces(buf: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}
const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};
const chunk = (event: Record<string, unknown>) =>
  encodeFrame({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: 'abc' })));

describe('Bedrock SigV4 (@smithy/signature-v4, service bedrock)', () => {
  it('matches the reference vectors, with and without x-amz-content-sha256', async () => {
    const plain = await signAws(creds, request, { date, contentSha256: false });
    expect(plain.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=a33d152fe41e762ec5c030aef105eece2f4805a0227ad6d6930e447ff7b92784',
    );
    const withHash = await signAws(creds, request, { date });
    expect(withHash['x-amz-content-sha256']).toBe('616eb59224eb795b641b4c541ad9ee8b939a1e8798f73b54fce66bb79ddbb992');
    expect(sig(withHash)).toBe('ce172e8795b7bbe18fc92364189aa6e76ae8bfea7c0fab47242d41ee79b8b80c');
  });

  it('signs a session token when the key carries one', async () => {
    const h = await signAws({ ...creds, sessionToken: 'FQoGZXIvYXdzEXAMPLE' }, request, { date });
    expect(h['x-amz-security-token']).toBe('FQoGZXIvYXdzEXAMPLE');
    expect(h.authorization).toContain('x-amz-security-token');
  });
});

describe('model ids', () => {
  it('maps dated names and adds the inference profile of the region when it serves the model', () => {
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'us-west-2')).toBe('us.anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'eu-central-1')).toBe('anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-7-sonnet-20250219', 'ap-northeast-1')).toBe('apac.anthropic.claude-3-7-sonnet-20250219-v1:0');
    expect(bedrockModelId('claude-2.1', 'us-east-1')).toBe('anthropic.claude-v2:1');
    expect(bedrockModelId('claude-3-haiku-20240307', 'ca-central-1')).toBe('anthropic.claude-3-haiku-20240307-v1:0');
    expect(bedrockModelId('eu.anthropic.claude-3-haiku-20240307-v1:0', 'us-east-1')).toBe('eu.anthropic.claude-3-haiku-20240307-v1:0');
  });
});

describe('event-stream decoding', () => {
  const frames = Buffer.concat([chunk({ type: 'message_start', message: {} }), chunk({ type: 'message_stop' })]);

  it('decodes frames incrementally whatever the read boundaries', async () => {
    for (const size of [1, 5, 13, 1000]) {
      const msgs = await collect(eventStreamMessages(pieces(frames, size)));
      expect(msgs.map((m) => m.headers[':event-type'])).toEqual(['chunk', 'chunk']);
    }
    const events = await collect(bedrockAnthropicEvents(pieces(frames, 3)));
    expect(events).toEqual([
      { event: 'message_start', data: '{"type":"message_start","message":{}}' },
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ]);
  });

  it('ends with an error event on a message CRC or prelude CRC mismatch, and on a truncated frame', async () => {
    const badPayload = Buffer.from(frames);
    badPayload[frames.length - 10]! ^= 1;
    const badPrelude = Buffer.from(frames);
    badPrelude[2]! ^= 1;
    for (const [buf, reason] of [
      [badPayload, 'message CRC mismatch'],
      [badPrelude, 'prelude CRC mismatch'],
      [frames.subarray(0, frames.length - 3), 'ended inside a frame'],
    ] as const) {
      const events = await collect(bedrockAnthropicEvents(pieces(buf, 7)));
      const last = events.at(-1)!;
      expect(last.event).toBe('error');
      expect(JSON.parse(last.data)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect(last.data).toContain(reason);
    }
  });

  it('turns an exception message into an error event', async () => {
    const exc = encodeFrame({ ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' }, Buffer.from('{"message":"Too many requests"}'));
    const events = await collect(bedrockAnthropicEvents(pieces(Buffer.concat([chunk({ type: 'ping' }), exc]), 4)));
    expect(events.at(-1)).toEqual({ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'throttlingException: Too many requests' } }) });
  });
});
