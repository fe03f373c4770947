import { createVerify, generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { vertexClaudeId, vertexRegion } from './adapter.js';
import { signedAssertion, TokenCache, type ServiceAccount } from './service-account.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const sa: ServiceAccount = {
  project_id: 'p1',
  client_email: 'relay@p1.iam.gserviceaccount.com',
  private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  private_key_id: 'kid-1',
  token_uri: 'https://oauth2.googleapis.com/token',
};
const key = JSON.stringify(sa);

afterEach(() => {
  vi.useRealTimers();
});

describe('Vertex helpers', () => {
  it('maps Claude names to Vertex ids and reads the region field', () => {
    expect(vertexClaudeId('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet-v2@20241022');
    expect(vertexClaudeId('claude-3-7-sonnet-20250219')).toBe('claude-3-7-sonnet@20250219');
    expect(vertexClaudeId('claude-opus-4@20250514')).toBe('claude-opus-4@20250514');
    expect(vertexRegion('europe-west1', 'x')).toBe('europe-west1');
    expect(vertexRegion('{"default":"us-east5","gemini-2.5-pro":"global"}', 'gemini-2.5-pro')).toBe('global');
    expect(vertexRegion('{"default":"us-east5"}', 'claude-3-haiku-20240307')).toBe('us-east5');
    expect(vertexRegion('', 'x')).toBe('us-central1');
  });

  it('signs an RS256 JWT-bearer assertion with the documented claims', () => {
    const jwt = signedAssertion(sa, 1_700_000_000);
    const [h, c, s] = jwt.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid-1' });
    expect(JSON.parse(Buffer.from(c!, 'base64url').toString())).toEqual({
      iss: sa.client_email,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: sa.token_uri,
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    expect(createVerify('RSA-SHA256').update(`${h}.${c}`).verify(publicKey, Buffer.from(s!, 'base64url'))).toBe(true);
  });

  it('caches a token per channel until five minutes before expiry, sharing one exchange in flight', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let n = 0;
    const exchange = vi.fn(async () => ({ token: `t${++n}`, expiresIn: 3600 }));
    const cache = new TokenCache(exchange);
    expect(await Promise.all([cache.token(1, key), cache.token(1, key), cache.token(1, key)])).toEqual(['t1', 't1', 't1']);
    expect(exchange).toHaveBeenCalledTimes(1);
    expect(await cache.token(2, key)).toBe('t2');
    vi.setSystemTime(Date.now() + (3600 - 301) * 1000);
    expect(await cache.token(1, key)).toBe('t1');
    vi.setSystemTime(Date.now() + 2000);
    expect(await cache.token(1, key)).toBe('t3');
    // An edited key is another credential: its own token.
    expect(await cache.token(1, JSON.stringify({ ...sa, private_key_id: 'kid-2' }))).toBe('t4');
  });
});
