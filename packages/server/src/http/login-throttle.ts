import { createHash } from 'node:crypto';
import type { SharedStore } from '../cluster/shared-store.js';
import type { Config } from '../config/config.js';
import { AppError } from './errors.js';

/**
 * Failed sign-ins per account (on top of CRITICAL_RATE_LIMIT per IP, which an attacker with many
 * addresses escapes). Counted in the shared store (Redis when configured, else the database), so
 * every node sees the same count. Each failure takes one of `limit` slots that expires `window`
 * after it was taken — a sliding log built from atomic set-if-absent (`claim`), so failures on
 * several nodes at once are each counted. With every slot taken, the account's sign-in is
 * refused, correct password or not, until the oldest slot expires; a success clears the slots.
 */
export class LoginThrottle {
  private readonly windowMs: number;

  constructor(
    private readonly store: SharedStore,
    private readonly setting: Config['loginFailures'],
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = setting.windowSec * 1000;
  }

  private slot(account: string, i: number): string {
    return `login-fail:${createHash('sha256').update(account).digest('base64url').slice(0, 32)}:${i}`;
  }

  /**
   * Throws LOGIN_LOCKED (with the minutes to wait) while the account has no slot left. In the API's
   * envelope with HTTP 200, like every refusal but a missing session, so the console shows the
   * message itself (it answers a 429 with a generic "too many requests").
   */
  async check(account: string): Promise<void> {
    if (this.setting.limit <= 0) return;
    let soonest = Infinity;
    for (let i = 0; i < this.setting.limit; i++) {
      const until = await this.store.get(this.slot(account, i));
      if (until === undefined) return;
      soonest = Math.min(soonest, Number(until));
    }
    const minutes = Math.max(1, Math.ceil((soonest - this.now()) / 60_000));
    throw new AppError('LOGIN_LOCKED', 200, undefined, { minutes });
  }

  /** Records a failed attempt. */
  async fail(account: string): Promise<void> {
    if (this.setting.limit <= 0) return;
    const until = String(this.now() + this.windowMs);
    for (let i = 0; i < this.setting.limit; i++) {
      if (await this.store.claim(this.slot(account, i), until, this.windowMs)) return;
    }
  }

  /**
   * A successful sign-in forgets the account's failures: one read when there were none. Slots
   * fill lowest first, so an empty slot 0 means none, or only older ones that expire by themselves.
   */
  async succeed(account: string): Promise<void> {
    if (this.setting.limit <= 0) return;
    if ((await this.store.get(this.slot(account, 0))) === undefined) return;
    for (let i = 0; i < this.setting.limit; i++) await this.store.delete(this.slot(account, i));
  }
}
