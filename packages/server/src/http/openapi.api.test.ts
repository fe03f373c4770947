import { Validator } from '@seriousme/openapi-schema-validator';
import { apiRoutes } from '@modelgate/shared/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed JSON document, read field by field
type Json = any;
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, unknown> };
};

/** The generated OpenAPI document (issue 11): valid, public, cacheable, and complete. */
describe('GET /api/openapi.json', () => {
  let srv: TestServer;
  let anon: ApiClient;
  let doc: Doc;
  let res: Response;

  beforeAll(async () => {
    srv = await startTestServer();
    anon = new ApiClient(srv.url);
    res = await fetch(`${srv.url}/api/openapi.json`);
    doc = (await res.json()) as Doc;
  });
  afterAll(() => srv?.close());

  it('validates as OpenAPI 3.1 and every $ref resolves', async () => {
    expect(res.status).toBe(200);
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const r = await validator.validate(structuredClone(doc));
    expect(r.errors ?? [], JSON.stringify(r.errors, null, 1)?.slice(0, 3000)).toEqual([]);
    expect(r.valid).toBe(true);
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('is public and cacheable, with an ETag a revalidation answers 304 to', async () => {
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(`${srv.url}/api/openapi.json`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    // No session needed, like /api/status.
    expect((await anon.get('/api/openapi.json')).body.openapi).toBe('3.1.0');
  });

  it('documents the management API and the relay with their schemas', () => {
    const register = doc.paths['/api/user/register']!.post;
    const body = register.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual(['username', 'password', 'password2', 'email', 'verification_code', 'aff_code']);
    // The reference console sends `aff_code: null` when there was no `?aff=`.
    expect(JSON.stringify(body.properties.aff_code)).toContain('null');
    expect(register.parameters).toContainEqual(expect.objectContaining({ in: 'query', name: 'turnstile' }));

    const tokens = doc.paths['/api/token/']!.get;
    expect(tokens.parameters.map((p: { name: string }) => p.name)).toEqual(['p', 'page_size', 'size']);
    expect(tokens.parameters[0].schema).toMatchObject({ type: 'integer', minimum: -1_000_000, maximum: 1_000_000 });
    expect(tokens.security).toEqual([{ session: [] }, { accessToken: [] }]);
    expect(Object.keys(tokens.responses)).toEqual(['200', '401']);
    expect(JSON.stringify(tokens.responses[200])).toContain('#/components/schemas/Token');
    expect(Object.keys(doc.components.schemas.Token.properties)).toContain('remain_quota');

    expect(doc.paths['/api/user/{id}']!.get.parameters).toContainEqual(expect.objectContaining({ in: 'path', name: 'id', required: true }));
    expect(doc.paths['/api/status']!.get.security).toEqual([]);
    expect(JSON.stringify(doc.paths['/api/pricing']!.get.responses[200])).toContain('usable_group');

    const chat = doc.paths['/v1/chat/completions']!.post;
    expect(chat.security).toEqual([{ apiKey: [] }]);
    expect(JSON.stringify(chat.requestBody)).toContain('#/components/schemas/ChatCompletionRequest');
    expect(JSON.stringify(chat.responses.default)).toContain('#/components/schemas/OpenAIError');
    expect(doc.paths['/v1/audio/transcriptions']!.post.requestBody.content).toHaveProperty('multipart/form-data');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['accessToken', 'apiKey', 'session']);
  });

  it('documents every route contract of @modelgate/shared/api', () => {
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    const contracts = Object.keys(apiRoutes).map((key) => key.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}'));
    expect(contracts.length).toBeGreaterThanOrEqual(80);
    expect(contracts.filter((key) => !documented.has(key))).toEqual([]);
  });
});
