import { apiFailure, apiRoutes, requestIssueCodes, type ApiRouteKey, type ApiRoutes, type RouteAuth, type RouteContract } from '@modelgate/shared/api';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifySchema,
  FastifySchemaCompiler,
  FastifySerializerCompiler,
  HTTPMethods,
  onRequestHookHandler,
  preValidationAsyncHookHandler,
  preValidationHookHandler,
  RawServerDefault,
  RouteHandlerMethod,
  RouteGenericInterface,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';

/**
 * Routes declare their schemas from the shared contracts (`@modelgate/shared/api`): fastify runs
 * the zod schema of the params, query and body before the handler (a failure is a ZodError, which
 * errors.ts answers in the route's envelope), the OpenAPI document is generated from them, and in
 * tests every answer is checked against its response schema.
 */

/** A zod schema as fastify hands it over (its JSON shorthand may wrap it as `{properties}`). */
function zodOf(schema: unknown): z.ZodType {
  if (schema instanceof z.ZodType) return schema;
  const wrapped = (schema as { properties?: unknown } | null)?.properties;
  if (wrapped instanceof z.ZodType) return wrapped;
  throw new Error(`not a zod schema: ${JSON.stringify(schema)}`);
}

/** A missing body is an empty object: the console posts some actions without one. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const zod = zodOf(schema);
  return (data: unknown) => {
    const r = zod.safeParse(httpPart === 'body' && (data === null || data === undefined) ? {} : data, { error: requestIssueCodes });
    return r.success ? { value: r.data } : { error: r.error };
  };
};

/** The relay reads its own raw bytes: its body schemas document the wire format only. */
export const documentOnlyValidator: FastifySchemaCompiler<unknown> = () => () => true;

/** An answer that does not match its declared schema (raised only when responses are checked). */
export class ResponseShapeError extends Error {
  readonly code = 'MG_RESPONSE_SHAPE';
}

/** First key of `sent` that the schema does not declare (zod dropped it from `parsed`), as a path. */
function undeclared(sent: unknown, parsed: unknown, path: string): string | null {
  if (Array.isArray(sent) && Array.isArray(parsed)) {
    for (let i = 0; i < sent.length; i++) {
      const found = undeclared(sent[i], parsed[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (sent && parsed && typeof sent === 'object' && typeof parsed === 'object') {
    for (const [key, value] of Object.entries(sent)) {
      if (value === undefined) continue;
      const at = path ? `${path}.${key}` : key;
      if (!Object.hasOwn(parsed, key)) return at;
      const found = undeclared(value, (parsed as Record<string, unknown>)[key], at);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Production answers are plain JSON.stringify (no cost over fastify's default). With `check`
 * (tests), each answer must parse with its schema and carry no field the schema does not declare,
 * so a shape change fails a test; `onMismatch` records it for the test server to report.
 */
export function serializerCompiler(check: boolean, onMismatch?: (message: string) => void): FastifySerializerCompiler<unknown> {
  return ({ schema, method, url, httpStatus }) => {
    if (!check) return (data) => JSON.stringify(data);
    const zod = zodOf(schema);
    return (data) => {
      const r = zod.safeParse(data);
      const extra = r.success ? undeclared(data, r.data, '') : null;
      if (!r.success || extra) {
        const why = r.success ? `undeclared field "${extra}"` : z.prettifyError(r.error);
        const message = `${method} ${url} answered ${httpStatus} with a body its schema refuses: ${why}\n${JSON.stringify(data).slice(0, 2000)}`;
        onMismatch?.(message);
        throw new ResponseShapeError(message);
      }
      return JSON.stringify(data);
    };
  };
}

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  public: [],
  user: [{ session: [] }, { accessToken: [] }],
  admin: [{ session: [] }, { accessToken: [] }],
  root: [{ session: [] }, { accessToken: [] }],
  token: [{ apiKey: [] }],
};
const ROLE_NOTE: Partial<Record<RouteAuth, string>> = {
  user: 'Signed-in user.',
  admin: 'Admin (role ≥ 10).',
  root: 'Super admin (role 100).',
  token: 'API key: `Authorization: Bearer sk-…`.',
};

/** The fastify schema of a contract: its parts, the answers by status, and what the document shows. */
export function fastifySchema(key: ApiRouteKey): FastifySchema & Record<string, unknown> {
  const c: (RouteContract & { tags?: readonly string[] }) | undefined = apiRoutes[key];
  if (!c) throw new Error(`no contract for ${key} in @modelgate/shared/api`);
  const response: Record<string, z.ZodType> = {};
  if (c.response) response[200] = c.response;
  if (c.auth === 'user' || c.auth === 'admin' || c.auth === 'root') response[401] = apiFailure;
  Object.assign(response, c.responses);
  const description = [ROLE_NOTE[c.auth], c.description].filter(Boolean).join(' ');
  return {
    summary: c.summary,
    ...(description ? { description } : {}),
    tags: c.tags ? [...c.tags] : undefined,
    security: SECURITY[c.auth],
    ...(c.params ? { params: c.params } : {}),
    ...(c.querystring ? { querystring: c.querystring } : {}),
    ...(c.body ? { body: c.body } : {}),
    ...(c.consumes ? { consumes: [...c.consumes] } : {}),
    response,
  };
}

export function routeOf(key: ApiRouteKey): { method: HTTPMethods; url: string } {
  const at = key.indexOf(' ');
  return { method: key.slice(0, at) as HTTPMethods, url: key.slice(at + 1) };
}

type Part<C, F extends string> = C extends Record<F, infer S> ? S : undefined;
type Responses<C> = (C extends { response: infer R } ? { 200: R } : object) &
  (C extends { auth: 'user' | 'admin' | 'root' } ? { 401: typeof apiFailure } : object);

/** The fastify schema type of route `K`, so handlers see typed params, query and body. */
export type SchemaOf<K extends ApiRouteKey> = {
  params: Part<ApiRoutes[K], 'params'>;
  querystring: Part<ApiRoutes[K], 'querystring'>;
  body: Part<ApiRoutes[K], 'body'>;
  response: Responses<ApiRoutes[K]>;
};

export type Handler<K extends ApiRouteKey> = RouteHandlerMethod<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  RouteGenericInterface,
  unknown,
  SchemaOf<K>,
  ZodTypeProvider,
  FastifyBaseLogger
>;

export interface RouteOptions {
  /** Run before the auth guard (none today); guards run before validation, so no session is a 401 whatever the body. */
  onRequest?: onRequestHookHandler[];
  /** Checks after the auth guard and before validation (rate limits, Turnstile). */
  guards?: Guard[];
  bodyLimit?: number;
}

export type Guard = preValidationHookHandler | preValidationAsyncHookHandler;
export type Guards = Record<'user' | 'admin' | 'root', Guard>;

/**
 * `declare('GET /api/token/', opts, handler)`: registers the route of a contract with its schemas
 * and its auth guard (the contract's `auth`), the handler typed by the schemas.
 */
export function routeDeclarer(app: FastifyInstance, guards: Guards) {
  return function declare<K extends ApiRouteKey>(key: K, opts: RouteOptions, handler: Handler<K>): void {
    const auth = apiRoutes[key].auth;
    const guard = auth === 'user' || auth === 'admin' || auth === 'root' ? [guards[auth]] : [];
    const bodyLimit = opts.bodyLimit ?? (apiRoutes[key] as RouteContract).bodyLimit;
    app.route({
      ...routeOf(key),
      schema: fastifySchema(key),
      ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
      ...(bodyLimit ? { bodyLimit } : {}),
      preValidation: [...guard, ...(opts.guards ?? [])],
      handler: handler as RouteHandlerMethod,
    });
  };
}
