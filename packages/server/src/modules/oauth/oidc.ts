import { createPublicKey, createVerify, type JsonWebKey } from 'node:crypto';
import { safeEqual } from '../../crypto/safe-equal.js';
import { AppError } from '../../http/errors.js';
import { providerCall, str, type ProviderHttp } from './provider-http.js';

/** The parts of an OpenID Provider's discovery document (OpenID Connect Discovery 1.0 §3) used here. */
export interface OidcMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
}

const DISCOVERY_TTL_MS = 5 * 60_000;
const discoveryCache = new Map<string, { at: number; meta: OidcMetadata }>();

/** The discovery document, kept five minutes per URL (it changes when the operator reconfigures the provider). */
export async function discover(http: ProviderHttp, url: string): Promise<OidcMetadata> {
  const hit = discoveryCache.get(url);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.meta;
  const { json, status } = await providerCall(http, url);
  const meta: OidcMetadata = {
    issuer: str(json.issuer),
    authorization_endpoint: str(json.authorization_endpoint),
    token_endpoint: str(json.token_endpoint),
    userinfo_endpoint: str(json.userinfo_endpoint),
    jwks_uri: str(json.jwks_uri),
  };
  if (status !== 200 || !meta.issuer || !meta.authorization_endpoint || !meta.token_endpoint || !meta.jwks_uri) {
    throw new AppError('OAUTH_PROVIDER_ERROR', 200, `discovery document at ${url} is incomplete`);
  }
  discoveryCache.set(url, { at: Date.now(), meta });
  return meta;
}

const part = (s: string | undefined): Record<string, unknown> => {
  try {
    return JSON.parse(Buffer.from(s ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'malformed');
  }
};

/**
 * The claims of an ID token after the checks of OpenID Connect Core §3.1.3.7: an RS256 signature
 * by a key of the provider's JWKS, our client in `aud`, the provider as `iss`, not expired, and the
 * nonce this sign-in sent.
 */
export async function verifyIdToken(http: ProviderHttp, meta: OidcMetadata, idToken: string, expect: { clientId: string; nonce: string }): Promise<Record<string, unknown>> {
  const [h, p, sig] = idToken.split('.');
  if (!h || !p || !sig) throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'malformed');
  const header = part(h);
  const claims = part(p);
  if (header.alg !== 'RS256') throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, `algorithm ${str(header.alg) || 'none'} is not accepted`);
  const { json } = await providerCall(http, meta.jwks_uri);
  const keys = Array.isArray(json.keys) ? (json.keys as Array<Record<string, unknown>>) : [];
  const candidates = keys.filter((k) => k.kty === 'RSA' && (!header.kid || k.kid === header.kid) && (k.use === undefined || k.use === 'sig'));
  const valid = candidates.some((jwk) => {
    try {
      const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
      return createVerify('RSA-SHA256').update(`${h}.${p}`).verify(key, Buffer.from(sig, 'base64url'));
    } catch {
      return false;
    }
  });
  if (!valid) throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'signature');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(expect.clientId)) throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'aud');
  if (str(claims.iss) !== meta.issuer) throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'iss');
  const now = Math.floor(Date.now() / 1000);
  // A minute of leeway for clocks that differ a little.
  if (typeof claims.exp !== 'number' || claims.exp + 60 < now) throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'exp');
  if (claims.nonce !== undefined && !safeEqual(str(claims.nonce), expect.nonce)) throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'nonce');
  return claims;
}
