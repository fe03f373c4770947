import { createVerify, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnthropicError } from '../anthropic-fake/errors.js';
import { plan as claudePlan } from '../anthropic-fake/reply.js';
import { validateMessagesRequest } from '../anthropic-fake/validate.js';
import { GeminiError } from '../gemini-fake/errors.js';
import { plan as geminiPlan } from '../gemini-fake/reply.js';
import { isRecord, validateGenerateContent } from '../gemini-fake/validate.js';
import { serveFake } from '../http-fake.js';
import { claudeAnswer, claudeErrorBody, claudeEvents, documentedMessage, geminiAnswer, geminiChunks, googleErrorBody, tokenAnswer, tokenRefusal, TOKEN_REFUSAL_STATUS } from './documented.js';
import type { FakeVertex, FakeVertexOptions, VertexRecordedRequest } from './types.js';

const ROUTE = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const SHORT_LIVED = 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';

class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

/** A Google refusal whose ErrorInfo detail the documented error carries (an expired token, a denied permission). */
class VertexError extends GeminiError {
  constructor(
    status: number,
    googleStatus: string,
    message: string,
    reason: string,
    readonly metadata?: Record<string, unknown>,
  ) {
    super(status, googleStatus, message, reason);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

const sendJson = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
};

const decodeSegment = (s: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A fake Vertex AI on loopback (providers-international §4): the OAuth token endpoint (`POST
 * /token`, JWT-bearer grant; the RS256 assertion is verified with the service account's public
 * key, with its audience, scope and lifetime) and the publisher endpoints under
 * `/v1/projects/{project}/locations/{region}/publishers/…`: Gemini `:generateContent` /
 * `:streamGenerateContent` (SSE with `alt=sse`) and Claude `:rawPredict` / `:streamRawPredict`
 * (Anthropic body without `model`, `anthropic_version: vertex-2023-10-16`). Calls need a live
 * access token issued here for the same project. Answers, stream events, token answers and error
 * bodies (Google's `{"error":{code,message,status}}`, OAuth's `{"error","error_description"}` at the
 * token endpoint, Anthropic's for Claude bodies) are built from Vertex's documented examples
 * (documented.ts, server/src/relay/adapters/vertex/fixtures).
 */
export async function startFakeVertex(opts: FakeVertexOptions): Promise<FakeVertex> {
  const requests: VertexRecordedRequest[] = [];
  const issued = new Map<string, { email: string; expiresAt: number }>();
  const projects = new Map(opts.serviceAccounts.filter((a) => a.projectId).map((a) => [a.clientEmail, a.projectId!]));
  const chunkCount = opts.chunkCount ?? 5;
  let tokenCount = 0;
  let refusal: string | null = null;
  let counter = 0;
  let tokenUri = '';

  function token(form: URLSearchParams): Record<string, unknown> {
    if (refusal) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_grant', refusal);
    if (form.get('grant_type') !== GRANT) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'unsupported_grant_type', `Invalid grant_type: ${form.get('grant_type') ?? ''}`);
    const parts = (form.get('assertion') ?? '').split('.');
    const header = decodeSegment(parts[0] ?? '');
    const claims = decodeSegment(parts[1] ?? '');
    if (parts.length !== 3 || !header || !claims) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_request', 'Invalid JWT: the assertion is not a signed JWT.');
    if (header.alg !== 'RS256') throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_grant', 'Invalid JWT: only RS256 is accepted.');
    const account = opts.serviceAccounts.find((a) => a.clientEmail === claims.iss);
    if (!account) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_grant', 'Invalid grant: account not found');
    const ok = createVerify('RSA-SHA256').update(`${parts[0]}.${parts[1]}`).verify(account.publicKey, Buffer.from(parts[2]!, 'base64url'));
    if (!ok) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.aud !== tokenUri) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_grant', `Invalid JWT: Failed audience check. The right audience is ${tokenUri}`);
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(SCOPE)) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isInteger(iat) || !Number.isInteger(exp) || exp - iat > 3600 || exp <= now || iat > now + 300) throw new OAuthError(TOKEN_REFUSAL_STATUS, 'invalid_grant', SHORT_LIVED);
    const lifetime = opts.tokenLifetimeSec ?? 3599;
    const access = `ya29.c.fake${randomBytes(24).toString('base64url')}`;
    issued.set(access, { email: account.clientEmail, expiresAt: Date.now() + lifetime * 1000 });
    tokenCount += 1;
    return tokenAnswer(access, lifetime);
  }

  function claude(res: ServerResponse, record: VertexRecordedRequest, body: unknown): void {
    const streaming = record.action === 'streamRawPredict';
    if (record.action !== 'rawPredict' && !streaming) throw new GeminiError(404, 'NOT_FOUND', `Method ${record.action ?? ''} is not found.`);
    if (!isRecord(body)) throw new AnthropicError(400, 'invalid_request_error', 'Request body must be a JSON object');
    if (body.anthropic_version !== 'vertex-2023-10-16') throw new AnthropicError(400, 'invalid_request_error', "anthropic_version: Input should be 'vertex-2023-10-16'");
    if ('model' in body) throw new AnthropicError(400, 'invalid_request_error', 'model: Extra inputs are not permitted');
    if (streaming !== (body.stream === true)) throw new AnthropicError(400, 'invalid_request_error', streaming ? 'stream: streamRawPredict requires "stream": true' : 'stream: use streamRawPredict to stream');
    const { anthropic_version: _v, ...rest } = body;
    const messages = { ...rest, model: record.model! };
    validateMessagesRequest(messages);
    const p = claudePlan(messages, { chunkCount, cacheRead: 0, cacheCreation: 0, id: `msg_vrtx_${String(++counter).padStart(8, '0')}`, toolId: `toolu_vrtx_${String(counter).padStart(8, '0')}` });
    if (!streaming) return sendJson(res, 200, claudeAnswer(p));
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    for (const [name, data] of claudeEvents(p, chunkCount)) res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    res.end();
  }

  function gemini(res: ServerResponse, record: VertexRecordedRequest, body: unknown, query: URLSearchParams): void {
    if (record.action !== 'generateContent' && record.action !== 'streamGenerateContent') throw new GeminiError(404, 'NOT_FOUND', `Method ${record.action ?? ''} is not found.`);
    // Vertex, unlike AI Studio, requires every content's role.
    const contents = isRecord(body) && Array.isArray(body.contents) ? body.contents : [];
    contents.forEach((c) => {
      if (!isRecord(c) || (c.role !== 'user' && c.role !== 'model')) throw new GeminiError(400, 'INVALID_ARGUMENT', documentedMessage('INVALID_ARGUMENT'));
    });
    const checked = validateGenerateContent(body);
    const p = geminiPlan(checked, { model: record.model!, chunkCount, cachedTokens: 0, responseId: `vrtxResp${String(++counter).padStart(6, '0')}` });
    if (record.action === 'generateContent') return sendJson(res, 200, geminiAnswer(p));
    const sse = query.get('alt') === 'sse';
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8' });
    let first = true;
    for (const c of geminiChunks(p)) {
      res.write(sse ? `data: ${JSON.stringify(c)}\r\n\r\n` : `${first ? '[' : '\r\n,'}${JSON.stringify(c)}`);
      first = false;
    }
    res.end(sse ? '' : first ? '[]' : ']');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const raw = await readBody(req);
    const record: VertexRecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body: undefined, kind: 'other' };
    requests.push(record);
    if (url.pathname === '/token' && req.method === 'POST') {
      record.kind = 'token';
      const form = new URLSearchParams(raw.toString('utf8'));
      record.body = Object.fromEntries(form);
      try {
        return sendJson(res, 200, token(form));
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        record.rejected = { status: err.status, message: err.message };
        return sendJson(res, err.status, tokenRefusal(err.error, err.message));
      }
    }
    try {
      record.body = raw.length ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
    } catch {
      record.body = undefined;
    }
    try {
      const m = ROUTE.exec(url.pathname);
      if (req.method !== 'POST' || !m) throw new GeminiError(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
      [record.project, record.location, record.kind, record.model, record.action] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), m[3] as 'google' | 'anthropic', decodeURIComponent(m[4]!), m[5]!];
      const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
      const t = auth ? issued.get(auth[1]!) : undefined;
      // An expired token is named as such (ACCESS_TOKEN_EXPIRED); an unknown one gets the bare refusal.
      if (!t) throw new GeminiError(401, 'UNAUTHENTICATED', documentedMessage('UNAUTHENTICATED'));
      if (t.expiresAt <= Date.now()) throw new VertexError(401, 'UNAUTHENTICATED', documentedMessage('UNAUTHENTICATED'), 'ACCESS_TOKEN_EXPIRED');
      const project = projects.get(t.email);
      if (project !== undefined && project !== record.project) {
        const resource = `projects/${record.project}/locations/${record.location}/publishers/${record.kind}/models/${record.model}`;
        throw new VertexError(403, 'PERMISSION_DENIED', `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/${resource}' (or it may not exist).`, 'IAM_PERMISSION_DENIED', { permission: 'aiplatform.endpoints.predict', resource });
      }
      if (record.kind === 'anthropic') claude(res, record, record.body);
      else gemini(res, record, record.body, url.searchParams);
    } catch (err) {
      if (err instanceof AnthropicError) {
        record.rejected = { status: err.status, message: err.message };
        return sendJson(res, err.status, claudeErrorBody(err.type, err.message));
      }
      if (!(err instanceof GeminiError)) throw err;
      record.rejected = { status: err.status, message: err.message };
      sendJson(res, err.status, googleErrorBody({ status: err.status, googleStatus: err.googleStatus, message: err.message, reason: err.reason, metadata: err instanceof VertexError ? err.metadata : undefined }));
    }
  }

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res, err) => sendJson(res, 500, googleErrorBody({ status: 500, googleStatus: 'INTERNAL', message: `Fake upstream bug: ${String(err)}` })));
  tokenUri = `${listening.url}/token`;
  return {
    url: listening.url,
    port: listening.port,
    tokenUri,
    requests,
    tokensIssued: () => tokenCount,
    refuseTokens: (d) => {
      refusal = d;
    },
    reset: () => {
      requests.length = 0;
      refusal = null;
    },
    close: listening.close,
  };
}
