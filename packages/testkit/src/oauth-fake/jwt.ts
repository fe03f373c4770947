import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** An RS256 signing key with its public half as a JWK (what `jwks_uri` serves). */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

export function newSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  return { kid, privateKey, jwk };
}

/** A compact JWS (RFC 7515) over `claims`, signed RS256 with `key`. */
export function signJwt(key: SigningKey, claims: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: key.kid }));
  const payload = b64url(JSON.stringify(claims));
  const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(key.privateKey);
  return `${header}.${payload}.${b64url(signature)}`;
}
