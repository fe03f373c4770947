/**
 * Short-lived codes (email verification, password reset) held in process memory like the
 * reference; the multi-node work moves them to Redis. A code is consumed when checked successfully.
 */
export class VerificationCodes {
  private readonly codes = new Map<string, { code: string; expiresAt: number }>();

  put(purpose: string, key: string, code: string, ttlMs: number): void {
    this.codes.set(`${purpose}:${key}`, { code, expiresAt: Date.now() + ttlMs });
  }

  consume(purpose: string, key: string, code: string): boolean {
    const k = `${purpose}:${key}`;
    const entry = this.codes.get(k);
    if (!entry || entry.expiresAt < Date.now() || entry.code !== code) return false;
    this.codes.delete(k);
    return true;
  }
}
