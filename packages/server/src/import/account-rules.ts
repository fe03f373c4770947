/**
 * The API's rules for accounts, applied to new-api's users and tokens (issue 29: a bidi-named
 * second super admin came in unchanged). What would identify or impersonate someone is refused
 * with the row; what is only shown is cleaned, and said:
 *
 * - username: NFKC as a sign-up stores it; control, bidi, invisible characters or mixed scripts
 *   refuse the row (packages/shared/src/validation.ts), and so does a name another user holds
 *   ignoring case (`ROOT` beside `root`), in ModelGate or earlier in the source. Up to 64
 *   characters, not the sign-up's 12: new-api's OAuth names (`linuxdo_12345`) are longer;
 * - role: one super admin. ModelGate's own, if it has one; else the first active one of the
 *   source by id. Any other is imported as a common user (promote by hand if meant);
 * - display name, token name: control and bidi characters removed;
 * - group: one with control or bidi characters becomes the default group (a token's: the user's);
 * - email: not an address, or another user's ignoring case: imported without one.
 */
import {
  hasControlOrBidi, isEmailAddress, normaliseUsername, Role, USERNAME_KEY_MAX_LENGTH, usernameKey, usernameProblem, withoutControlOrBidi,
} from '@modelgate/shared';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { RowError } from './values.js';

const ROLES = new Set<number>([Role.Common, Role.Admin, Role.Root]);
/** The users.username column. */
const USERNAME_COLUMN = 64;

/** A value as the report shows it: quoted, with control, format (bidi, zero-width) and separator characters spelt as escapes. */
export function shown(s: string): string {
  return `"${s.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}"\\]/gu, (ch) => (ch === '"' || ch === '\\' ? `\\${ch}` : `\\u{${ch.codePointAt(0)!.toString(16)}}`))}"`;
}

type Adjust = (message: string) => void;

export interface CheckedUser {
  username: string;
  usernameKey: string;
  role: number;
  email: string;
}

export class AccountRules {
  private constructor(
    /** Username key → the user holding it. */
    private readonly keys: Map<string, number>,
    /** Lower-cased email → the user holding it. */
    private readonly emails: Map<string, number>,
    private rootId: number | undefined,
  ) {}

  /** What ModelGate already holds: names, emails and its super admin. */
  static async load(t: Kysely<Database>): Promise<AccountRules> {
    const rows = await t.selectFrom('users').select(['id', 'username', 'email', 'role']).orderBy('id').execute();
    const keys = new Map<string, number>();
    const emails = new Map<string, number>();
    let rootId: number | undefined;
    for (const r of rows) {
      const id = Number(r.id);
      if (!keys.has(usernameKey(r.username))) keys.set(usernameKey(r.username), id);
      if (r.email && !emails.has(r.email.toLowerCase())) emails.set(r.email.toLowerCase(), id);
      if (r.role === Role.Root && rootId === undefined) rootId = id;
    }
    return new AccountRules(keys, emails, rootId);
  }

  /** A user row's identity fields as ModelGate may hold them; throws RowError to refuse the row. */
  user(id: number, raw: { username: string; role: number; email: string; deleted: boolean }, adjust: Adjust): CheckedUser {
    const username = normaliseUsername(raw.username);
    if (!username) throw new RowError('username is empty');
    const problem = usernameProblem(username, USERNAME_COLUMN);
    if (problem === 'USERNAME_INVALID_CHARS') throw new RowError(`username ${shown(raw.username)} holds control, bidi or invisible characters`);
    if (problem === 'USERNAME_MIXED_SCRIPT') throw new RowError(`username ${shown(raw.username)} mixes letters of different scripts`);
    if (problem) throw new RowError(`username ${shown(raw.username)} is longer than ${USERNAME_COLUMN} characters`);
    const key = usernameKey(username);
    if ([...key].length > USERNAME_KEY_MAX_LENGTH) throw new RowError(`username ${shown(raw.username)} is too long to compare`);
    const holder = this.keys.get(key);
    if (holder !== undefined && holder !== id) throw new RowError(`username ${shown(username)} is user #${holder}'s, ignoring case`);
    if (username !== raw.username.trim()) adjust(`username ${shown(raw.username)} normalised (NFKC) to ${shown(username)}`);

    let role = raw.role;
    if (!ROLES.has(role)) {
      adjust(`role ${role} is not a ModelGate role: imported as a common user (1)`);
      role = Role.Common;
    } else if (role === Role.Root && (raw.deleted || (this.rootId !== undefined && this.rootId !== id))) {
      const why = raw.deleted ? 'a deleted super admin' : `a second super admin (user #${this.rootId} is the super admin)`;
      adjust(`role 100: ${why}: imported as a common user (1); promote by hand if meant`);
      role = Role.Common;
    }

    let email = raw.email.trim();
    const owner = email ? this.emails.get(email.toLowerCase()) : undefined;
    if (email && !isEmailAddress(email)) {
      adjust(`email ${shown(email)} is not an email address: imported without one`);
      email = '';
    } else if (owner !== undefined && owner !== id) {
      adjust(`email ${shown(email)} is user #${owner}'s, ignoring case: imported without one`);
      email = '';
    }
    return { username, usernameKey: key, role, email };
  }

  /** Takes the row's name, email and (if it kept the role) the super admin's place, once the row is imported. */
  claim(id: number, user: CheckedUser): void {
    this.keys.set(user.usernameKey, id);
    if (user.email) this.emails.set(user.email.toLowerCase(), id);
    if (user.role === Role.Root) this.rootId ??= id;
  }
}

/** A name shown in lists (display name, token name) without its control and bidi characters. */
export function shownName(column: string, value: string, adjust: Adjust): string {
  if (!hasControlOrBidi(value)) return value;
  adjust(`${column} ${shown(value)} holds control or bidi characters: removed`);
  return withoutControlOrBidi(value);
}

/** A group name: one with control or bidi characters becomes `fallback`. */
export function groupName(value: string, fallback: string, adjust: Adjust): string {
  if (!hasControlOrBidi(value)) return value;
  adjust(`group ${shown(value)} holds control or bidi characters: imported as ${fallback ? shown(fallback) : "the user's group"}`);
  return fallback;
}
