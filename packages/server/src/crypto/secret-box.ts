import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets sealed at rest (channel keys, secret options): AES-256-GCM under a key derived with
 * HKDF-SHA256 from CRYPTO_SECRET, one key per purpose (`channel.key`, `option.EpayKey`, …), so a
 * value moved into another column or option does not open. The stored form names the key it was
 * sealed with, so several keys can be configured at once and rotation is a re-seal:
 *
 *   enc:v1:<kid>:<iv>:<tag>:<ciphertext>      (base64url parts; kid = 8 characters)
 *
 * The key id is itself derived from the secret (a one-way function), never a counter, so every
 * node that holds the same secret computes the same id. A value without the prefix is plaintext
 * from before sealing existed: it reads as itself until the boot task or rotation seals it.
 */
export const SEALED_PREFIX = 'enc:v1:';

const SALT = Buffer.from('modelgate/secret-box/v1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a stored value did not open. */
export type UnreadableReason = 'unknown-key' | 'tampered' | 'malformed';

export class SecretUnreadableError extends Error {
  constructor(
    readonly reason: UnreadableReason,
    /** The key id the value names (null when it is too malformed to name one). */
    readonly kid: string | null,
  ) {
    super(
      reason === 'unknown-key'
        ? `sealed with key id ${kid}, which is not configured (set CRYPTO_SECRET to that secret, or add it to CRYPTO_SECRET_OLD)`
        : reason === 'tampered'
          ? `the stored ciphertext does not authenticate under key id ${kid} (altered, truncated or copied from elsewhere)`
          : 'the stored value starts like a sealed secret but is malformed',
    );
    this.name = 'SecretUnreadableError';
  }
}

/** The key id of a secret: 6 bytes of HKDF output, base64url (8 characters). */
export function keyIdOf(secret: string): string {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, 'key-id', 6)).toString('base64url');
}

export interface KeyRingInput {
  /** The secret new values are sealed with. */
  current: string;
  /** Secrets that still open older values (rotation). */
  previous?: readonly string[];
}

/** Seals and opens values with the configured key ring. Derived keys are cached per (key, purpose). */
export class SecretBox {
  readonly currentKid: string;
  private readonly secrets = new Map<string, Buffer>();
  private readonly derived = new Map<string, Buffer>();

  constructor(ring: KeyRingInput) {
    if (!ring.current) throw new Error('SecretBox needs a non-empty current secret');
    this.currentKid = keyIdOf(ring.current);
    this.secrets.set(this.currentKid, Buffer.from(ring.current, 'utf8'));
    for (const s of ring.previous ?? []) {
      if (!s) continue;
      const kid = keyIdOf(s);
      if (!this.secrets.has(kid)) this.secrets.set(kid, Buffer.from(s, 'utf8'));
    }
  }

  /** Every configured key id, the current one first. */
  get kids(): string[] {
    return [...this.secrets.keys()];
  }

  private key(kid: string, purpose: string): Buffer | undefined {
    const id = `${kid}\u0000${purpose}`;
    let k = this.derived.get(id);
    if (!k) {
      const secret = this.secrets.get(kid);
      if (!secret) return undefined;
      k = Buffer.from(hkdfSync('sha256', secret, SALT, `purpose:${purpose}`, 32));
      this.derived.set(id, k);
    }
    return k;
  }

  static isSealed(value: string | null | undefined): boolean {
    return typeof value === 'string' && value.startsWith(SEALED_PREFIX);
  }

  /** The key id a sealed value names, else null. */
  static kidOf(value: string | null | undefined): string | null {
    if (!SecretBox.isSealed(value)) return null;
    const kid = value!.slice(SEALED_PREFIX.length).split(':', 1)[0]!;
    return /^[A-Za-z0-9_-]{8}$/.test(kid) ? kid : null;
  }

  /** True when the value is sealed with the current key (nothing for rotation to do). */
  isCurrent(value: string): boolean {
    return SecretBox.kidOf(value) === this.currentKid;
  }

  /** Seals `plaintext` with the current key; the empty string stays empty (an unset secret). */
  seal(purpose: string, plaintext: string): string {
    if (plaintext === '') return '';
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key(this.currentKid, purpose)!, iv);
    const header = `${SEALED_PREFIX}${this.currentKid}`;
    cipher.setAAD(Buffer.from(header));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${header}:${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
  }

  /** `seal` unless the value is sealed already (a copied row, an imported sealed value). */
  sealIfPlain(purpose: string, value: string): string {
    return SecretBox.isSealed(value) ? value : this.seal(purpose, value);
  }

  /** The plaintext of a stored value; plaintext from before sealing is returned as is. Throws SecretUnreadableError. */
  open(purpose: string, stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const parts = stored.slice(SEALED_PREFIX.length).split(':');
    const kid = SecretBox.kidOf(stored);
    if (parts.length !== 4 || !kid) throw new SecretUnreadableError('malformed', kid);
    const [, ivText, tagText, ctText] = parts as [string, string, string, string];
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretUnreadableError('malformed', kid);
    const key = this.key(kid, purpose);
    if (!key) throw new SecretUnreadableError('unknown-key', kid);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${SEALED_PREFIX}${kid}`));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError('tampered', kid);
    }
  }

  /**
   * HMAC keys for one purpose (a signed callback URL), the current key's first: sign with the
   * first, accept any, so a signature handed out before a rotation still verifies. Derived apart
   * from the sealing keys (another HKDF info), so neither can stand in for the other.
   */
  macKeys(purpose: string): Buffer[] {
    return this.kids.map((kid) => this.key(kid, `mac:${purpose}`)!);
  }

  /** The value sealed with the current key (opened first when it is sealed with an older one). */
  reseal(purpose: string, stored: string): string {
    if (this.isCurrent(stored)) return stored;
    return this.seal(purpose, this.open(purpose, stored));
  }
}

/** Purposes: one derived key per column or option, so ciphertext cannot be moved between them. */
export const CHANNEL_KEY_PURPOSE = 'channel.key';
export const optionPurpose = (key: string) => `option.${key}`;
