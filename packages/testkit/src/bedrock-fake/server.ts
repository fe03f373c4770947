import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnthropicError } from '../anthropic-fake/errors.js';
import { plan } from '../anthropic-fake/reply.js';
import { isRecord, validateMessagesRequest } from '../anthropic-fake/validate.js';
import { serveFake } from '../http-fake.js';
import { chunkFrame, exceptionFrame } from './event-stream.js';
import { bedrockAnswer, bedrockEvents, documentedMessage, errorBody, EXCEPTION_BY_STATUS, STREAM_EXCEPTION, streamExceptionPayload } from './reply.js';
import { parseAuthorization, payloadHash, signature } from './sigv4.js';
import type { BedrockRecordedRequest, FakeAwsCredentials, FakeBedrock, FakeBedrockFault, FakeBedrockOptions } from './types.js';

const FAULT_HEADER = 'x-fake-fault';
const DEFAULT_CREDENTIALS: FakeAwsCredentials[] = [{ accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake-secret' }];
/** Model ids as Bedrock names them, optionally behind a cross-region inference profile. */
const MODEL_ID = /^(?:(?:us|eu|apac)\.)?anthropic\.claude-[a-z0-9.-]+-v\d+(?::\d+)?$/;
const SKEW_MS = 5 * 60_000;
/** The fake's own refusals of a signature or a key, in the words of Bedrock's documented errors (bedrock/fixtures). */
const BAD_SIGNATURE = documentedMessage('InvalidSignatureException')!;
const UNKNOWN_KEY = documentedMessage('UnrecognizedClientException')!;

class AwsError extends Error {
  constructor(
    readonly status: number,
    readonly exception: string,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/** `20240101T000000Z` → epoch ms. */
function amzDateMs(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
}

/**
 * A fake AWS Bedrock Runtime for Claude on loopback (providers-international §5): `POST
 * /model/{modelId}/invoke` and `/invoke-with-response-stream`. Every request's SigV4 signature is
 * recomputed (service `bedrock`, double-encoded path, signed headers as listed, payload hash);
 * bodies are Anthropic Messages with `anthropic_version: bedrock-2023-05-31` and no model or
 * stream; streams are binary event-stream frames, each a `chunk` with one Anthropic event in
 * base64 (no pings), written in pieces that split frames; errors are AWS's `{"message"}` with
 * `x-amzn-ErrorType`. Answers, stream events and error bodies are Bedrock's documented examples
 * (server/src/relay/adapters/bedrock/fixtures) with this request's content put in (reply.ts).
 */
export async function startFakeBedrock(opts: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const creds = opts.credentials ?? DEFAULT_CREDENTIALS;
  const chunkCount = opts.chunkCount ?? 5;
  const requests: BedrockRecordedRequest[] = [];
  let fault: FakeBedrockFault | null = opts.fault ?? null;
  let faultUses = 0;
  let counter = 0;

  const takeFault = (req: IncomingMessage): FakeBedrockFault | undefined => {
    const h = header(req, FAULT_HEADER);
    if (h) return JSON.parse(h) as FakeBedrockFault;
    if (!fault || (fault.times !== undefined && faultUses >= fault.times)) return undefined;
    faultUses += 1;
    return fault;
  };

  const sendError = (res: ServerResponse, e: AwsError) => {
    res.writeHead(e.status, {
      'content-type': 'application/json',
      'x-amzn-requestid': randomUUID(),
      'x-amzn-errortype': `${e.exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    });
    res.end(JSON.stringify(errorBody(e.exception, e.message)));
  };

  function verify(req: IncomingMessage, raw: Buffer): void {
    const auth = parseAuthorization(header(req, 'authorization') ?? '');
    if (!auth) throw new AwsError(403, 'IncompleteSignatureException', "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.");
    const cred = creds.find((c) => c.accessKeyId === auth.accessKeyId);
    if (!cred) throw new AwsError(403, 'UnrecognizedClientException', UNKNOWN_KEY);
    if (auth.service !== 'bedrock') throw new AwsError(403, 'InvalidSignatureException', `Credential should be scoped to correct service: 'bedrock'.`);
    if (opts.region && auth.region !== opts.region) throw new AwsError(403, 'InvalidSignatureException', `Credential should be scoped to a valid region, not '${auth.region}'.`);
    const amzDate = header(req, 'x-amz-date') ?? '';
    if (!auth.signedHeaders.includes('host') || !auth.signedHeaders.includes('x-amz-date')) throw new AwsError(403, 'InvalidSignatureException', BAD_SIGNATURE);
    const at = amzDateMs(amzDate);
    if (!Number.isFinite(at) || amzDate.slice(0, 8) !== auth.date) throw new AwsError(403, 'InvalidSignatureException', 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP');
    if (Math.abs(Date.now() - at) > SKEW_MS) throw new AwsError(403, 'InvalidSignatureException', 'Signature expired: the request time is too far from the current time.');
    if (cred.sessionToken && (header(req, 'x-amz-security-token') !== cred.sessionToken || !auth.signedHeaders.includes('x-amz-security-token'))) {
      throw new AwsError(403, 'UnrecognizedClientException', UNKNOWN_KEY);
    }
    const hash = payloadHash(raw);
    const claimed = header(req, 'x-amz-content-sha256');
    if (claimed !== undefined && claimed !== hash) throw new AwsError(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const rawPath = (req.url ?? '/').split('?')[0]!;
    const expected = signature({ method: req.method ?? 'POST', rawPath, query: url.searchParams, headers: req.headers, signedHeaders: auth.signedHeaders, payloadHash: hash, amzDate, region: auth.region, service: auth.service, secretAccessKey: cred.secretAccessKey });
    if (expected !== auth.signature) throw new AwsError(403, 'InvalidSignatureException', BAD_SIGNATURE);
  }

  /** The Bedrock body: Anthropic Messages minus model and stream, plus the version. */
  function validate(body: unknown, modelId: string): Record<string, unknown> {
    if (!isRecord(body)) throw new AwsError(400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    if (body.anthropic_version !== 'bedrock-2023-05-31') throw new AwsError(400, 'ValidationException', 'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.');
    for (const k of ['model', 'stream']) {
      if (k in body) throw new AwsError(400, 'ValidationException', `Malformed input request: #: extraneous key [${k}] is not permitted, please reformat your input and try again.`);
    }
    if (body.anthropic_beta !== undefined && !(Array.isArray(body.anthropic_beta) && body.anthropic_beta.every((b) => typeof b === 'string'))) {
      throw new AwsError(400, 'ValidationException', 'Malformed input request: #/anthropic_beta: expected type: JSONArray, please reformat your input and try again.');
    }
    const { anthropic_version: _v, anthropic_beta: _b, ...messages } = body;
    const asMessages = { ...messages, model: modelId.replace(/^(?:us|eu|apac)\.anthropic\./, '').replace(/^anthropic\./, '') };
    try {
      validateMessagesRequest(asMessages);
    } catch (err) {
      if (err instanceof AnthropicError) throw new AwsError(400, 'ValidationException', err.message);
      throw err;
    }
    return asMessages;
  }

  async function stream(res: ServerResponse, body: Record<string, unknown>, f: FakeBedrockFault | undefined): Promise<void> {
    const p = plan(body, { chunkCount, cacheRead: 0, cacheCreation: 0, id: `msg_bdrk_${String(++counter).padStart(8, '0')}`, toolId: `toolu_bdrk_${String(counter).padStart(8, '0')}` });
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
    const write = async (buf: Buffer) => {
      // Frames ignore read boundaries: split each one across two writes (inside the prelude).
      for (const piece of [buf.subarray(0, 7), buf.subarray(7)]) {
        if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
      }
    };
    let sent = 0;
    for (const event of bedrockEvents(p, chunkCount)) {
      if (res.destroyed) return;
      if (f?.exceptionAfterEvents !== undefined && sent >= f.exceptionAfterEvents) {
        const type = f.streamException ?? STREAM_EXCEPTION.type;
        res.end(exceptionFrame(type, streamExceptionPayload(type, f.message)));
        return;
      }
      const frame = chunkFrame(event, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456'.slice(0, 1 + (sent % 40)));
      if (f?.corruptAfterEvents !== undefined && sent >= f.corruptAfterEvents) {
        // One payload bit flipped in transit: the message CRC no longer matches.
        frame[frame.length - 10]! ^= 0x01;
        await write(frame);
        res.end();
        return;
      }
      await write(frame);
      sent += 1;
    }
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(path);
    const modelId = m ? decodeURIComponent(m[1]!) : '';
    let body: unknown;
    try {
      body = raw.length ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
    } catch {
      body = undefined;
    }
    const record: BedrockRecordedRequest = { method: req.method ?? 'GET', path, modelId, headers: req.headers, body };
    requests.push(record);
    try {
      verify(req, raw);
      if (req.method !== 'POST' || !m) throw new AwsError(404, 'UnknownOperationException', 'UnknownOperationException');
      if (!MODEL_ID.test(modelId)) throw new AwsError(400, 'ValidationException', 'The provided model identifier is invalid.');
      const messages = validate(body, modelId);
      const f = takeFault(req);
      if (f?.status !== undefined) {
        const exception = f.exception ?? EXCEPTION_BY_STATUS.get(f.status) ?? 'InternalServerException';
        throw new AwsError(f.status, exception, f.message ?? documentedMessage(exception) ?? exception);
      }
      if (m[2] === 'invoke-with-response-stream') return await stream(res, messages, f);
      const p = plan(messages, { chunkCount, cacheRead: 0, cacheCreation: 0, id: `msg_bdrk_${String(++counter).padStart(8, '0')}`, toolId: `toolu_bdrk_${String(counter).padStart(8, '0')}` });
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID(), 'x-amzn-bedrock-input-token-count': String(p.usage.input_tokens), 'x-amzn-bedrock-output-token-count': String(p.usage.output_tokens) });
      res.end(JSON.stringify(bedrockAnswer(p)));
    } catch (err) {
      if (!(err instanceof AwsError)) throw err;
      record.rejected = { status: err.status, exception: err.exception, message: err.message };
      sendError(res, err);
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => sendError(res, new AwsError(500, 'InternalServerException', `Fake upstream bug: ${String(err)}`)));
  return {
    url: listening.url,
    port: listening.port,
    requests,
    reset: () => {
      requests.length = 0;
      fault = null;
      faultUses = 0;
    },
    setFault: (f) => {
      fault = f;
      faultUses = 0;
    },
    close: listening.close,
  };
}
