import { describe, expect, it } from 'vitest';
import { encodeFrame } from './event-stream.js';
import { canonicalRequest, signature, stringToSign, type SigV4Input } from './sigv4.js';
import { createHash } from 'node:crypto';

/** providers-international §5.3: vectors botocore and @smithy/signature-v4 agree on. */
const BODY = '{"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}';
const HASH = '616eb59224eb795b641b4c541ad9ee8b939a1e8798f73b54fce66bb79ddbb992';
const vector = (signedHeaders: string[], extra: Record<string, string> = {}): SigV4Input => ({
  method: 'POST',
  rawPath: '/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke',
  query: new URLSearchParams(),
  headers: { 'content-type': 'application/json', accept: 'application/json', host: 'bedrock-runtime.us-east-1.amazonaws.com', 'x-amz-date': '20240101T000000Z', ...extra },
  signedHeaders,
  payloadHash: HASH,
  amzDate: '20240101T000000Z',
  region: 'us-east-1',
  service: 'bedrock',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
});

describe('the Bedrock fake\'s SigV4 verifier', () => {
  it('reproduces the reference vectors (double-encoded path, with and without x-amz-content-sha256)', () => {
    expect(BODY.length).toBe(102);
    expect(createHash('sha256').update(BODY).digest('hex')).toBe(HASH);
    const plain = vector(['accept', 'content-type', 'host', 'x-amz-date']);
    expect(canonicalRequest(plain).split('\n')[1]).toBe('/model/anthropic.claude-3-haiku-20240307-v1%253A0/invoke');
    // The canonical request's hash, the last line of the string to sign.
    expect(stringToSign(plain).split('\n')[3]).toBe('447e16484ad9d80193208889afb44f343218c577f98e13dcdd26c010d26c48ee');
    expect(signature(plain)).toBe('a33d152fe41e762ec5c030aef105eece2f4805a0227ad6d6930e447ff7b92784');
    expect(signature(vector(['accept', 'content-type', 'host', 'x-amz-content-sha256', 'x-amz-date'], { 'x-amz-content-sha256': HASH }))).toBe('ce172e8795b7bbe18fc92364189aa6e76ae8bfea7c0fab47242d41ee79b8b80c');
  });

  it('encodes the worked event-stream frame byte for byte', () => {
    const frame = encodeFrame({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from('{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0="}'));
    expect(frame.toString('hex')).toBe(
      '000000870000004b87ea2bf30b3a6576656e742d747970650700056368756e6b0d3a636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d6573736167652d747970650700056576656e747b226279746573223a2265794a306558426c496a6f696257567a6332466e5a56397a64473977496e303d227dba48ab22',
    );
  });
});
