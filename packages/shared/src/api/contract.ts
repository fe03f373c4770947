import type { z } from 'zod';

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
}

/** `"METHOD /path"` → contract; the path is fastify's (`:id` parameters, trailing slash as the console sends it). */
export type RouteTable = Record<string, RouteContract>;

/** Tags every route of a resource for the OpenAPI document, keeping the literal keys and schemas. */
export function resource<const T extends RouteTable>(tag: string, routes: T): { [K in keyof T]: T[K] & { tags: readonly [string] } } {
  const out = {} as Record<string, RouteContract & { tags: readonly [string] }>;
  for (const [key, route] of Object.entries(routes)) out[key] = { ...route, tags: [tag] };
  return out as { [K in keyof T]: T[K] & { tags: readonly [string] } };
}
