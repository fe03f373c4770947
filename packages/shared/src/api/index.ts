/**
 * `@modelgate/shared/api`: every HTTP route's contract (zod 4 schemas for its params, query, body
 * and answer), the entity types derived from them, and the field validators. The server declares
 * its routes from `apiRoutes` (validation, the OpenAPI document, response checks in tests); the
 * console types its fetchers and test handlers with the same table. A separate entry point from
 * `@modelgate/shared` so the console bundles zod only where it parses at run time (its tests).
 */
import type { z } from 'zod';
import { auditRoutes } from './audit.js';
import { authRoutes } from './auth.js';
import { channelRoutes } from './channels.js';
import { dataRoutes } from './data.js';
import { groupRoutes } from './groups.js';
import { ledgerRoutes } from './ledger.js';
import { logRoutes } from './logs.js';
import { oauthRoutes } from './oauth.js';
import { passkeyRoutes } from './passkeys.js';
import { optionRoutes } from './options.js';
import { planRoutes } from './plans.js';
import { pricingRoutes } from './pricing.js';
import { redemptionRoutes } from './redemptions.js';
import { relayRoutes } from './relay.js';
import { statusRoutes } from './status.js';
import { mjRoutes, sunoRoutes, taskRoutes } from './tasks.js';
import { tokenRoutes } from './tokens.js';
import { topUpRoutes } from './topups.js';
import { twoFactorRoutes } from './two-factor.js';
import { userRoutes } from './users.js';
import { videoRoutes } from './videos.js';

export * from './audit.js';
export * from './auth.js';
export * from './channels.js';
export * from './contract.js';
export * from './data.js';
export * from './envelope.js';
export * from './fields.js';
export * from './groups.js';
export * from './ledger.js';
export * from './logs.js';
export * from './oauth.js';
export * from './options.js';
export * from './passkeys.js';
export * from './plans.js';
export * from './pricing.js';
export * from './redemptions.js';
export * from './relay.js';
export * from './status.js';
export * from './tasks.js';
export * from './tokens.js';
export * from './topups.js';
export * from './two-factor.js';
export * from './users.js';
export * from './videos.js';

/** Every route of the server, by `"METHOD /path"`. */
export const apiRoutes = {
  ...statusRoutes,
  ...authRoutes,
  ...userRoutes,
  ...twoFactorRoutes,
  ...passkeyRoutes,
  ...oauthRoutes,
  ...tokenRoutes,
  ...channelRoutes,
  ...groupRoutes,
  ...logRoutes,
  ...dataRoutes,
  ...optionRoutes,
  ...pricingRoutes,
  ...redemptionRoutes,
  ...topUpRoutes,
  ...planRoutes,
  ...ledgerRoutes,
  ...auditRoutes,
  ...relayRoutes,
  ...taskRoutes,
  ...mjRoutes,
  ...sunoRoutes,
  ...videoRoutes,
};

export type ApiRoutes = typeof apiRoutes;
export type ApiRouteKey = keyof ApiRoutes;

type Field<K extends ApiRouteKey, F extends string> = ApiRoutes[K] extends Record<F, infer S extends z.ZodType> ? S : never;

/** The HTTP 200 body of a route, as the server sends it. */
export type ApiResponseOf<K extends ApiRouteKey> = z.output<Field<K, 'response'>>;
/** The `data` of a route's success envelope. */
export type ApiData<K extends ApiRouteKey> = Extract<ApiResponseOf<K>, { success: true }> extends { data: infer D } ? D : undefined;
/** What a client may send as the body (before the server's coercions: numbers may be strings, …). */
export type ApiBody<K extends ApiRouteKey> = z.input<Field<K, 'body'>>;
/** What a client may send as the query string. */
export type ApiQuery<K extends ApiRouteKey> = z.input<Field<K, 'querystring'>>;
export type ApiParams<K extends ApiRouteKey> = z.input<Field<K, 'params'>>;
export * from './storage.js';
