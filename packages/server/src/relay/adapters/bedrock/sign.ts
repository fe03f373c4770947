import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials } from './credentials.js';

/** Bedrock Runtime signs as service `bedrock`, not `bedrock-runtime` (providers-international §5.2). */
export const SIGNING_SERVICE = 'bedrock';

/** SHA-256 (and HMAC-SHA256 with a secret) in the shape the signer constructs. */
class Sha256 extends Hash {
  constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
    super('sha256', secret);
  }
}

/**
 * SigV4-signs one request (@smithy/signature-v4). `url`'s path must already carry the model id
 * encoded once (`:` as `%3A`); the signer encodes each segment again for the canonical URI, as
 * every AWS service but S3 expects. Returns the headers to send, `authorization` and
 * `x-amz-date` (and `x-amz-content-sha256`, `x-amz-security-token`) included.
 */
export async function signAws(
  creds: AwsCredentials,
  req: { method: string; url: string; headers: Record<string, string>; body: string | Buffer },
  opts: { date?: Date; contentSha256?: boolean } = {},
): Promise<Record<string, string>> {
  const url = new URL(req.url);
  const signer = new SignatureV4({
    service: SIGNING_SERVICE,
    region: creds.region,
    sha256: Sha256,
    applyChecksum: opts.contentSha256 ?? true,
    credentials: { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey, sessionToken: creds.sessionToken },
  });
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query,
      headers: { ...req.headers, host: url.host },
      body: req.body,
    },
    { signingDate: opts.date },
  );
  return signed.headers;
}
