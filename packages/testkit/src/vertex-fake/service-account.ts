import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { FakeServiceAccount } from './types.js';

/**
 * A fresh service-account JSON key as Google issues them (PKCS#8 private key), pointing its
 * `token_uri` at a fake token endpoint, plus what the fake needs to verify its JWTs.
 */
export function makeServiceAccount(opts: { tokenUri: string; projectId?: string; name?: string }): { json: string; key: Record<string, string>; account: FakeServiceAccount } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const projectId = opts.projectId ?? 'fake-project';
  const clientEmail = `${opts.name ?? 'modelgate'}@${projectId}.iam.gserviceaccount.com`;
  const key = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: String(100_000_000_000_000_000_000n + BigInt(randomBytes(4).readUInt32BE(0))),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: opts.tokenUri,
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
    universe_domain: 'googleapis.com',
  };
  return { json: JSON.stringify(key, null, 2), key, account: { clientEmail, projectId, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() } };
}
