import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFields, serveFake } from '../http-fake.js';
import { newSigningKey, signJwt } from './jwt.js';
import type { FakeIdentity, FakeOAuth, FakeOAuthFault, FakeOAuthOptions, FakeOAuthRequest } from './types.js';

interface Grant {
  identity: FakeIdentity;
  redirectUri?: string;
  codeChallenge?: string;
  nonce?: string;
  expiresAt: number;
}

const AUTHORIZE_PATHS = new Set(['/login/oauth/authorize', '/oauth2/authorize', '/authorize']);
const TOKEN_PATHS = new Set(['/login/oauth/access_token', '/oauth2/token', '/token', '/api/oauth2/token']);
const DISCORD_TOKEN = '/api/oauth2/token';
const DISCORD_ME = '/api/users/@me';
const CODE_TTL_MS = 10 * 60_000;



function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1, form-encoded parts) or the body. */
function clientCredentials(req: IncomingMessage, fields: Record<string, string>): { id: string; secret: string } {
  const auth = req.headers.authorization ?? '';
  if (/^basic /i.test(auth)) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    return { id: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
  }
  return { id: fields.client_id ?? '', secret: fields.client_secret ?? '' };
}

function bearer(req: IncomingMessage): string {
  // GitHub accepts `token <t>` as well as `Bearer <t>`.
  return (req.headers.authorization ?? '').replace(/^(bearer|token)\s+/i, '').trim();
}

/**
 * A loopback OAuth 2.0 / OpenID Connect provider that auto-approves one configurable identity.
 * It answers the four shapes ModelGate signs in with: GitHub (`/login/oauth/authorize`,
 * `/login/oauth/access_token`, `GET /user`), LinuxDO Connect (`/oauth2/authorize`, `/oauth2/token`,
 * `GET /api/user`), Discord (`/oauth2/authorize`, a form POST to `/api/oauth2/token`,
 * `GET /api/users/@me`) and generic OIDC (discovery, `/authorize`, `/token` with an RS256 `id_token`,
 * `/userinfo`, `/jwks`). The token endpoints check the client id and secret, the code (single use,
 * 10 minutes), the redirect URI and the PKCE verifier, and answer errors in each protocol's shape.
 */
export async function startFakeOAuth(opts: FakeOAuthOptions = {}): Promise<FakeOAuth> {
  const clientId = opts.clientId ?? 'fake-client-id';
  const clientSecret = opts.clientSecret ?? 'fake-client-secret';
  let identity: FakeIdentity = opts.identity ?? { id: 1001, login: 'octocat', name: 'The Octocat', email: 'octocat@example.com' };
  let fault: FakeOAuthFault | null = null;
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, FakeIdentity>();
  const requests: FakeOAuthRequest[] = [];
  const key = newSigningKey();
  let base = '';

  const issueCode: FakeOAuth['issueCode'] = (p) => {
    const code = randomBytes(12).toString('hex');
    grants.set(code, { identity: p.identity ?? identity, redirectUri: p.redirectUri, codeChallenge: p.codeChallenge, nonce: p.nonce, expiresAt: Date.now() + CODE_TTL_MS });
    return code;
  };

  const authorize = (res: ServerResponse, q: Record<string, string>): void => {
    if (q.client_id !== clientId) return json(res, 400, { error: 'invalid_client', error_description: 'unknown client_id' });
    const redirect = q.redirect_uri || opts.defaultRedirectUri;
    if (!redirect) return json(res, 400, { error: 'invalid_request', error_description: 'redirect_uri is required' });
    if (q.code_challenge && q.code_challenge_method !== 'S256') return json(res, 400, { error: 'invalid_request', error_description: 'only S256 challenges' });
    const target = new URL(redirect);
    if (opts.requirePkce && !q.code_challenge) {
      target.searchParams.set('error', 'invalid_request');
      target.searchParams.set('error_description', 'PKCE code_challenge required');
    } else {
      target.searchParams.set('code', issueCode({ redirectUri: q.redirect_uri, codeChallenge: q.code_challenge, nonce: q.nonce }));
    }
    if (q.state) target.searchParams.set('state', q.state);
    res.writeHead(302, { location: target.toString() }).end();
  };

  const token = (req: IncomingMessage, res: ServerResponse, path: string, fields: Record<string, string>): void => {
    const github = path === '/login/oauth/access_token';
    // GitHub answers errors with HTTP 200 and an `error` field; the others with 400/401.
    const fail = (status: number, error: string, description: string) =>
      json(res, github ? 200 : status, { error, error_description: description });
    // Discord's token endpoint takes only a form (its docs: application/x-www-form-urlencoded).
    if (path === DISCORD_TOKEN && !String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return fail(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const client = clientCredentials(req, fields);
    if (client.id !== clientId || !same(client.secret, clientSecret)) return fail(401, 'invalid_client', 'The client_id and/or client_secret passed are incorrect.');
    if (!github && fields.grant_type !== 'authorization_code') return fail(400, 'unsupported_grant_type', 'grant_type must be authorization_code');
    const grant = grants.get(fields.code ?? '');
    grants.delete(fields.code ?? '');
    if (!grant || grant.expiresAt < Date.now()) return fail(400, github ? 'bad_verification_code' : 'invalid_grant', 'The code passed is incorrect or expired.');
    if (grant.redirectUri && fields.redirect_uri !== grant.redirectUri) return fail(400, github ? 'redirect_uri_mismatch' : 'invalid_grant', 'The redirect_uri does not match the one authorized.');
    if (grant.codeChallenge) {
      const verifier = fields.code_verifier ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!verifier || challenge !== grant.codeChallenge) return fail(400, 'invalid_grant', 'PKCE verification failed');
    }
    const accessToken = `fake_at_${randomBytes(16).toString('hex')}`;
    tokens.set(accessToken, grant.identity);
    const now = Math.floor(Date.now() / 1000);
    const idToken = signJwt(key, {
      iss: base,
      aud: clientId,
      sub: String(grant.identity.id),
      iat: now,
      exp: now + 600,
      ...(grant.nonce ? { nonce: grant.nonce } : {}),
      preferred_username: grant.identity.login,
      name: grant.identity.name,
      email: grant.identity.email,
    });
    json(res, 200, { access_token: accessToken, token_type: github ? 'bearer' : 'Bearer', scope: fields.scope ?? '', expires_in: 3600, ...(github ? {} : { id_token: idToken }) });
  };

  const profile = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const who = tokens.get(bearer(req));
    if (!who) {
      if (path === DISCORD_ME) return json(res, 401, { message: '401: Unauthorized', code: 0 });
      return json(res, 401, path === '/user' ? { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } : { error: 'invalid_token' });
    }
    if (path === DISCORD_ME) {
      // Discord's user object: the id is a snowflake string; `global_name` is the display name.
      return json(res, 200, { id: String(who.id), username: who.login, global_name: who.name ?? null, discriminator: '0', avatar: null, email: who.email ?? null, verified: who.email ? (who.emailVerified ?? true) : false, locale: 'en-US', mfa_enabled: false });
    }
    if (path === '/user') return json(res, 200, { id: Number(who.id), login: who.login, name: who.name ?? null, email: who.email ?? null, type: 'User' });
    if (path === '/api/user') {
      return json(res, 200, { id: Number(who.id), username: who.login, name: who.name ?? '', email: who.email ?? '', active: true, trust_level: who.trustLevel ?? 1, silenced: false, avatar_template: '' });
    }
    json(res, 200, { sub: String(who.id), preferred_username: who.login, name: who.name, email: who.email, email_verified: true });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    if (req.method === 'GET' && AUTHORIZE_PATHS.has(path)) return authorize(res, Object.fromEntries(url.searchParams));
    const fields = await readFields(req, url);
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, fields });
    const f = fault;
    if (f && (!f.paths || f.paths.includes(path))) {
      if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
      if (signal.aborted) return;
      if (f.status) return json(res, f.status, { error: 'server_error', error_description: 'fake fault' });
    }
    if (req.method === 'POST' && TOKEN_PATHS.has(path)) return token(req, res, path, fields);
    if (req.method === 'GET' && (path === '/user' || path === '/api/user' || path === '/userinfo' || path === DISCORD_ME)) return profile(req, res, path);
    if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        userinfo_endpoint: `${base}/userinfo`,
        jwks_uri: `${base}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        scopes_supported: ['openid', 'profile', 'email'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (req.method === 'GET' && path === '/jwks') return json(res, 200, { keys: [key.jwk] });
    json(res, 404, { error: 'not_found' });
  };

  const server = await serveFake(opts, handle, (res, err) => json(res, 500, { error: 'server_error', error_description: String(err) }));
  base = server.url;
  return {
    url: server.url,
    port: server.port,
    clientId,
    clientSecret,
    discoveryUrl: `${server.url}/.well-known/openid-configuration`,
    setIdentity(next) {
      identity = next;
    },
    setFault(next) {
      fault = next;
    },
    issueCode,
    requests,
    close: server.close,
  };
}
