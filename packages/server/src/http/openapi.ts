import swagger from '@fastify/swagger';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { fastifySchema, routeOf } from './schema.js';

const DESCRIPTION = [
  'ModelGate’s HTTP API, generated from the route schemas the server validates with.',
  '',
  '- `/api/*` — the management API. Every answer is `{success, message, data}` with HTTP 200;',
  '  an application error is `success: false` with a message in the language of `Accept-Language`',
  '  (zh unless it asks for en), and 401 means "no session". The console signs in with',
  '  `POST /api/user/login` (session cookie) and sends `New-Api-User: <user id>` on every call;',
  '  scripts send a system access token in `Authorization` instead.',
  '- `/v1/*` — the OpenAI-compatible relay, authenticated with an API key',
  '  (`Authorization: Bearer sk-…`); errors are OpenAI error objects.',
].join('\n');

/**
 * Collects every route's declared schemas (call before any route is added) for the OpenAPI 3.1
 * document served at `GET /api/openapi.json`.
 */
export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'ModelGate API', version, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'Console session; send `New-Api-User: <user id>` with it.' },
          accessToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'A system access token (`GET /api/user/token`).' },
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (`sk-…`).' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
}

/** `GET /api/openapi.json`: public like /api/status, built once, cacheable (ETag, max-age). */
export function openApiRoute(app: FastifyInstance): void {
  let cached: { body: string; etag: string } | undefined;
  const key = 'GET /api/openapi.json';
  // Sent as prepared text (not through the response serializer): declared for the document only.
  app.route({ ...routeOf(key), schema: fastifySchema(key), handler: async (req, reply) => {
    cached ??= (() => {
      const body = JSON.stringify(app.swagger());
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    })();
    // Overrides the `/api` default of no-store: the document changes only with a new version.
    reply.header('cache-control', 'public, max-age=3600').header('etag', cached.etag);
    if (req.headers['if-none-match'] === cached.etag) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(cached.body);
  } });
}
