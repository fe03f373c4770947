import type { z } from 'zod';
import type { AuditAction, AuditTarget } from '../audit.js';

/**
 * Who may call a route: `public` anyone; `user`, `admin`, `root` a console session (cookie plus
 * `New-Api-User`) or an access token of at least that role; `token` an API key (`Authorization:
 * Bearer sk-…`, the relay).
 */
export type RouteAuth = 'public' | 'user' | 'admin' | 'root' | 'token';

/**
 * One route's contract: the server declares its schemas from it (validation, OpenAPI) and the
 * console types its fetchers and test handlers with it. `response` is the HTTP 200 body.
 */
export interface RouteContract {
  auth: RouteAuth;
  summary: string;
  description?: string;
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** Request media types other than JSON (multipart uploads), for the document. */
  consumes?: readonly string[];
  /** The HTTP 200 body. */
  response?: z.ZodType;
  /** Bodies of other statuses the route itself answers with (404, 501, `default` for any error). */
  responses?: Readonly<Partial<Record<number | 'default', z.ZodType>>>;
  /**
   * The largest body in bytes, for a route whose bodies are always small (sign-in forms): below the
   * server's limit for its kind of route (MAX_API_BODY_MB), answered 413 in the route's envelope.
   */
  bodyLimit?: number;
  /**
   * The audit log entry an admin or root call writes (docs/security.md#audit-log); every non-GET
   * admin or root route declares one, or `{skip}` with the reason it changes nothing.
   */
  audit?: RouteAudit | { skip: string };
}

/** A request value: `body.id`, `params.id`, `query.target_timestamp` (an array is recorded joined by commas). */
export type AuditField = `${'params' | 'query' | 'body'}.${string}`;

/** How a route's calls are recorded in the audit log (the server's audit module reads it). */
export interface RouteAudit {
  action: AuditAction;
  /** Another action by the value of a request field (`user.manage`'s `action`, a status-only edit). */
  actionBy?: { field: AuditField; actions: Readonly<Record<string, AuditAction>> };
  target: AuditTarget;
  /** Where the target's id is in the request, or the fixed targets of a route that always acts on the same ones. */
  targetId?: AuditField | readonly string[];
  /** Record the target's state before and after the call (edits and deletes); the server knows how to read each target type. */
  snapshot?: boolean;
  /** Record the answer's `data` (a count, a new id); never on a route whose answer carries a credential. */
  result?: boolean;
}

/** `"METHOD /path"` → contract; the path is fastify's (`:id` parameters, trailing slash as the console sends it). */
export type RouteTable = Record<string, RouteContract>;

/** Tags every route of a resource for the OpenAPI document, keeping the literal keys and schemas. */
export function resource<const T extends RouteTable>(tag: string, routes: T): { [K in keyof T]: T[K] & { tags: readonly [string] } } {
  const out = {} as Record<string, RouteContract & { tags: readonly [string] }>;
  for (const [key, route] of Object.entries(routes)) out[key] = { ...route, tags: [tag] };
  return out as { [K in keyof T]: T[K] & { tags: readonly [string] } };
}
