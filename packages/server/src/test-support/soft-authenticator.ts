import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator for API tests: what a browser and a platform authenticator
 * together hand the server, built from the spec (W3C WebAuthn §6 authenticator data, §6.5
 * attestation object with the `none` format, §5.8.1 client data) with an ES256 key from node:crypto.
 * It answers the server's real options, so the library verifies real signatures, not mocks.
 */

/** The few CBOR types an attestation object and a COSE key need (RFC 8949). */
export type Cbor = number | string | Uint8Array | Map<number | string, Cbor> | Record<string, never>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value.entries()] : [];
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/** The ES256 public key as a COSE_Key (RFC 9053): kty EC2, alg -7, crv P-256, x, y. */
function coseKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return cbor(
    new Map<number, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
}

export interface SoftCredential {
  /** base64url. */
  id: string;
  rpId: string;
  /** base64url, as the options' `user.id` named it. */
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The signature counter the next assertion reports (before its increment). */
  counter: number;
}

/** The parts of the server's options this authenticator reads (the JSON forms of WebAuthn). */
interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string };
  excludeCredentials?: Array<{ id: string }>;
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: Array<{ id: string }>;
}

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /**
   * `origin`: the page the "browser" is on. `counterStep`: how much each assertion raises the
   * counter (0 for an authenticator that keeps none, as synced passkeys do). `userVerified`: the
   * UV flag it reports.
   */
  constructor(private readonly opts: { origin: string; counterStep?: number; userVerified?: boolean }) {}

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags | (this.opts.userVerified === false ? 0 : UV) | (attested ? AT : 0)]), c, attested ?? Buffer.alloc(0)]);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin?: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: origin ?? this.opts.origin, crossOrigin: false }));
  }

  /** `navigator.credentials.create()`: a new discoverable credential, `none` attestation. */
  create(options: CreationOptions, override: { origin?: string; rpId?: string } = {}) {
    const rpId = override.rpId ?? options.rp.id ?? new URL(this.opts.origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (this.credentials.some((c) => c.rpId === rpId && excluded.has(c.id))) throw new Error('InvalidStateError: this authenticator holds an excluded credential');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(32);
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLen, id, coseKey(publicKey)]);
    const authData = this.authData(rpId, UP, 0, attested);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const credential: SoftCredential = { id: b64url(id), rpId, userHandle: options.user.id, privateKey, publicKey, counter: 0 };
    this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: { clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, override.origin)), attestationObject: b64url(attestationObject), transports: ['internal'] },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
    };
  }

  /**
   * `navigator.credentials.get()`: an assertion by the credential `pick.credentialId` (default:
   * the first one allowed, or the first discoverable one for the RP). `pick.counter` reports that
   * counter instead of the next one (a cloned authenticator); `pick.origin` another page's origin.
   */
  get(options: RequestOptions, pick: { credentialId?: string; counter?: number; origin?: string; userHandle?: string | null } = {}) {
    const rpId = options.rpId ?? new URL(this.opts.origin).hostname;
    const allowed = options.allowCredentials?.length ? new Set(options.allowCredentials.map((c) => c.id)) : null;
    const credential = pick.credentialId
      ? this.credentials.find((c) => c.id === pick.credentialId)
      : this.credentials.find((c) => c.rpId === rpId && (!allowed || allowed.has(c.id)));
    if (!credential) throw new Error('NotAllowedError: no credential for this relying party');
    credential.counter += this.opts.counterStep ?? 1;
    const authData = this.authData(rpId, UP, pick.counter ?? credential.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, pick.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    const userHandle = pick.userHandle === undefined ? credential.userHandle : pick.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
    };
  }
}
