import type { SharedStore } from '../../cluster/shared-store.js';

/**
 * Short-lived codes (email verification, password reset) in the shared store — Redis when
 * configured, else the database — so a code mailed by one node is accepted by any other.
 * Stored under `code:<purpose>:<key>`; a new code for the same purpose and key replaces the old
 * one. A code is consumed by the one successful check (compare-and-delete, atomic on both
 * backends); a wrong guess leaves it in place.
 */
export class VerificationCodes {
  constructor(private readonly store: SharedStore) {}

  put(purpose: string, key: string, code: string, ttlMs: number): Promise<void> {
    return this.store.set(`code:${purpose}:${key}`, code, ttlMs);
  }

  consume(purpose: string, key: string, code: string): Promise<boolean> {
    if (!code) return Promise.resolve(false);
    return this.store.takeIf(`code:${purpose}:${key}`, code);
  }
}
