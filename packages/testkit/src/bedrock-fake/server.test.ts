import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { providerFixture } from '../provider-fixtures.js';
import { encodeFrame } from './event-stream.js';
import { bedrockDocumentedError } from './fixtures.js';
import { startFakeBedrock } from './server.js';
import { canonicalRequest, payloadHash, signature, stringToSign, type SigV4Input } from './sigv4.js';
import type { FakeBedrock } from './types.js';
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

type Obj = Record<string, unknown>;
const fixture = (name: string) => providerFixture('bedrock', name);
const MODEL_PATH = '/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0';

/** The messages of an event-stream body (string headers only, as Bedrock sends), CRCs not checked: the adapter's tests do that. */
function frames(buf: Buffer): Array<{ headers: Record<string, string>; payload: Obj }> {
  const out: Array<{ headers: Record<string, string>; payload: Obj }> = [];
  for (let at = 0; at < buf.length; ) {
    const total = buf.readUInt32BE(at);
    const end = at + 12 + buf.readUInt32BE(at + 4);
    const headers: Record<string, string> = {};
    for (let i = at + 12; i < end; ) {
      const n = buf.readUInt8(i);
      const name = buf.toString('utf8', i + 1, i + 1 + n);
      const len = buf.readUInt16BE(i + 2 + n);
      headers[name] = buf.toString('utf8', i + 4 + n, i + 4 + n + len);
      i += 4 + n + len;
    }
    out.push({ headers, payload: JSON.parse(buf.toString('utf8', end, at + total - 4)) as Obj });
    at += total;
  }
  return out;
}

describe('the Bedrock fake serves the documented shapes (bedrock/fixtures)', () => {
  let fake: FakeBedrock;
  /** A SigV4-signed POST as the adapter sends it (signed by the fake's own signer, whose vectors are checked above). */
  const post = (path: string, body: unknown, o: { secret?: string; fault?: Obj; stream?: boolean } = {}) => {
    const raw = Buffer.from(JSON.stringify(body));
    const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: o.stream ? 'application/vnd.amazon.eventstream' : 'application/json', 'x-amz-date': amzDate };
    const signedHeaders = ['accept', 'content-type', 'host', 'x-amz-date'];
    const sig = signature({ method: 'POST', rawPath: path, query: new URLSearchParams(), headers: { ...headers, host: new URL(fake.url).host }, signedHeaders, payloadHash: payloadHash(raw), amzDate, region: 'us-east-1', service: 'bedrock', secretAccessKey: o.secret ?? 'fake-secret' });
    const authorization = `AWS4-HMAC-SHA256 Credential=AKIDFAKE/${amzDate.slice(0, 8)}/us-east-1/bedrock/aws4_request, SignedHeaders=${signedHeaders.join(';')}, Signature=${sig}`;
    return fetch(`${fake.url}${path}`, { method: 'POST', headers: { ...headers, authorization, ...(o.fault ? { 'x-fake-fault': JSON.stringify(o.fault) } : {}) }, body: raw });
  };
  const request = fixture('invoke.request').body as Obj;
  const { tools: _tools, tool_choice: _choice, ...textRequest } = request;

  beforeAll(async () => {
    fake = await startFakeBedrock();
  });
  afterAll(() => fake.close());

  it('a text answer has invoke.response.text\'s shape; a tool call the shape of invoke.response\'s blocks', async () => {
    const text = (await (await post(`${MODEL_PATH}/invoke`, textRequest)).json()) as Obj;
    expect(shapeOf(text)).toEqual(shapeOf(fixture('invoke.response.text').body));
    expect(text.content).toEqual([{ type: 'text', text: 'Hello from the fake Claude' }]);
    const tool = (await (await post(`${MODEL_PATH}/invoke`, request)).json()) as Obj;
    const documented = fixture('invoke.response').body as Obj;
    expect(shapeOf({ ...tool, content: [] })).toEqual(shapeOf({ ...documented, content: [] }));
    // A tool's input follows the caller's schema, not the documented example's.
    const withoutInput = (block: Obj) => shapeOf('input' in block ? { ...block, input: {} } : block);
    const blocks = (documented.content as Obj[]).map(withoutInput);
    for (const block of tool.content as Obj[]) expect(blocks).toContainEqual(withoutInput(block));
    expect(tool.stop_reason).toBe('tool_use');
  });

  it('every streamed chunk has the shape of the documented event of its kind; message_stop carries the invocation metrics', async () => {
    const res = await post(`${MODEL_PATH}/invoke-with-response-stream`, request, { stream: true });
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const served = frames(Buffer.from(await res.arrayBuffer()));
    for (const f of served) expect(f.headers).toEqual({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' });
    const events = served.map((f) => JSON.parse(Buffer.from(String(f.payload.bytes), 'base64').toString('utf8')) as Obj);
    const documented = fixture('invoke-stream').events as Obj[];
    // The same kinds in the documented order (no pings); the fake sends its own number of deltas.
    expect([...new Set(events.map((e) => e.type))]).toEqual([...new Set(documented.map((e) => e.type))]);
    /** Events of one kind, told apart by their block or delta type. */
    const kind = (e: Obj) => `${String(e.type)} ${String((e.content_block as Obj | undefined)?.type ?? (e.delta as Obj | undefined)?.type ?? '')}`;
    for (const e of events) {
      const like = documented.find((d) => kind(d) === kind(e));
      expect(like, kind(e)).toBeDefined();
      expect(shapeOf(e), kind(e)).toEqual(shapeOf(like));
    }
    const metrics = events.at(-1)!['amazon-bedrock-invocationMetrics'] as Obj;
    const start = (events[0]!.message as Obj).usage as Obj;
    expect(metrics).toMatchObject({ inputTokenCount: start.input_tokens, cacheReadInputTokenCount: 0, cacheWriteInputTokenCount: 0 });
  });

  it('a stream exception is the documented frame and payload', async () => {
    const res = await post(`${MODEL_PATH}/invoke-with-response-stream`, textRequest, { stream: true, fault: { exceptionAfterEvents: 3 } });
    const served = frames(Buffer.from(await res.arrayBuffer()));
    const documented = fixture('invoke-stream.exception');
    expect(served).toHaveLength(documented.events!.length);
    expect(served.at(-1)).toEqual({ headers: { ':exception-type': documented.eventNames!.at(-1), ':content-type': 'application/json', ':message-type': 'exception' }, payload: documented.events!.at(-1) });
  });

  it('refusals carry the documented bodies, statuses and x-amzn-ErrorType', async () => {
    const cases: Array<[string, () => Promise<Response>]> = [
      ['ThrottlingException', () => post(`${MODEL_PATH}/invoke`, textRequest, { fault: { status: 429 } })],
      ['ModelErrorException', () => post(`${MODEL_PATH}/invoke`, textRequest, { fault: { status: 424 } })],
      ['ServiceUnavailableException', () => post(`${MODEL_PATH}/invoke`, textRequest, { fault: { status: 503 } })],
      ['InvalidSignatureException', () => post(`${MODEL_PATH}/invoke`, textRequest, { secret: 'wrong-secret' })],
    ];
    for (const [exception, send] of cases) {
      const res = await send();
      const doc = bedrockDocumentedError(exception);
      expect(res.status, exception).toBe(doc.status);
      expect(res.headers.get('x-amzn-errortype')).toMatch(new RegExp(`^${exception}:`));
      expect(await res.json()).toEqual(doc.body);
    }
  });
});
