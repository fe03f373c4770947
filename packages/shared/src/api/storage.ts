import type { LoginResult } from './auth.js';
import type { SiteStatus } from './status.js';
import type { SessionUser } from './users.js';

/**
 * The browser's localStorage layout, shared with the reference console (console-api.md §6), so a
 * browser that used either console keeps working with the other.
 */

/**
 * The login answer stored as `localStorage.user`; a console written for the reference may have
 * stored fewer fields, so only the id, name and role are relied on.
 */
export type StoredUser = Pick<SessionUser, 'id' | 'username' | 'role'> & Partial<LoginResult>;

/** `GET /api/status` as cached in `localStorage.status`: an older or the reference's server may omit fields. */
export type StoredStatus = Partial<SiteStatus>;
