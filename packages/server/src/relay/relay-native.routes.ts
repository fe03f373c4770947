import { relayLangFromHeader } from '@modelgate/shared';
import type { ApiRouteKey } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from './relay-context.js';
import { countChatPrompt } from './billing/token-counter.js';
import { geminiPromptAsChat } from './adapters/gemini/formats/gemini/count.js';
import { invalidGeminiField, validateGeminiBody } from './adapters/gemini/formats/gemini/validate.js';
import { fastifySchema } from '../http/schema.js';
import { localError, RelayError } from './relay-error.js';
import { errorJson, routeFormat } from './relay-reply.js';
import { relay } from './relay.service.js';
import { assertRelayJsonShape } from './request-parse.js';
import { assertModelAllowed, requestAuth, type RelayAuth } from './token-auth.js';

const schemaOf = (key: string) => fastifySchema(key as ApiRouteKey);

/** What the Gemini routes serve for generation models (the rest is answered UNIMPLEMENTED). */
const GENERATION_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];
/** … and for embedding models. */
const EMBEDDING_METHODS = ['embedContent', 'batchEmbedContents'];

async function withToken(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, fn: (auth: RelayAuth) => Promise<unknown>): Promise<unknown> {
  try {
    return await fn(await requestAuth(ctx, req, relayLangFromHeader(req.headers['accept-language'])));
  } catch (err) {
    if (!(err instanceof RelayError)) throw err;
    return reply.code(err.status).send(errorJson(routeFormat(req), err));
  }
}

async function availableModels(ctx: RelayContext, auth: RelayAuth): Promise<string[]> {
  if (auth.token.modelLimits) return [...auth.token.modelLimits];
  await ctx.relay.channels.ensure();
  return ctx.relay.channels.modelsFor(auth.group);
}

const geminiModel = (id: string) => ({ name: `models/${id}`, displayName: id, supportedGenerationMethods: GENERATION_METHODS });

/** `:countTokens`: the prompt counted locally, as a reservation sizes it (nothing reaches an upstream or is charged). */
async function countTokens(req: FastifyRequest, auth: RelayAuth, model: string): Promise<{ totalTokens: number }> {
  const lang = relayLangFromHeader(req.headers['accept-language']);
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  assertRelayJsonShape(raw, lang);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidGeminiField(lang, 'body', 'Invalid JSON payload received.');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidGeminiField(lang, 'body', 'Invalid JSON payload received.');
  const b = body as Record<string, unknown>;
  validateGeminiBody(lang, b, { countTokens: true });
  assertModelAllowed(auth, model, lang);
  const inner = b.generateContentRequest ?? b.generate_content_request;
  const request = inner && typeof inner === 'object' ? (inner as Record<string, unknown>) : b;
  return { totalTokens: await countChatPrompt(model, geminiPromptAsChat(request)) };
}

/**
 * The native surfaces other than OpenAI chat and Anthropic Messages: Gemini's
 * `POST /v1beta/models/{model}:{method}` (and the `/v1/models/…` spelling; providers-international
 * §2.6), its model list, and OpenAI's `POST /v1/responses`. Each is billed and logged like every
 * relay call; Gemini routes answer errors in Google's shape.
 */
export function nativeRelayRoutes(scope: FastifyInstance, ctx: RelayContext): void {
  const bodyLimit = ctx.config.bodyLimits.relayJson;
  scope.post('/v1/responses', { bodyLimit, schema: schemaOf('POST /v1/responses') }, (req, reply) => relay(ctx, req, reply, { mode: 'chat', format: 'openai-responses' }));

  const gemini = { relayFormat: 'gemini' as const };
  for (const prefix of ['/v1beta', '/v1']) {
    const path = `${prefix}/models/:action`;
    scope.post(path, { bodyLimit, schema: schemaOf(`POST ${path}`), config: gemini }, async (req, reply) => {
      const action = (req.params as { action: string }).action;
      const at = action.lastIndexOf(':');
      const model = at > 0 ? action.slice(0, at).replace(/^models\//, '') : '';
      const method = at > 0 ? action.slice(at + 1) : '';
      const lang = relayLangFromHeader(req.headers['accept-language']);
      if (method === 'generateContent' || method === 'streamGenerateContent') {
        const stream = method === 'streamGenerateContent';
        const alt = (req.query as { alt?: unknown }).alt;
        return relay(ctx, req, reply, { mode: 'chat', format: 'gemini', stream, jsonArray: stream && alt !== 'sse' }, model);
      }
      if (method === 'countTokens') return withToken(ctx, req, reply, (auth) => countTokens(req, auth, model));
      if (EMBEDDING_METHODS.includes(method)) {
        return relay(ctx, req, reply, { mode: 'embeddings', format: method === 'embedContent' ? 'gemini-embed-content' : 'gemini-embeddings' }, model);
      }
      const err = !method
        ? localError(lang, 404, 'RELAY_MODEL_NOT_FOUND', { type: 'NOT_FOUND', errorCode: 'NOT_FOUND', detail: action })
        : localError(lang, 501, 'RELAY_UNSUPPORTED', { type: 'UNIMPLEMENTED', errorCode: 'UNIMPLEMENTED', detail: `models.${method}` });
      return reply.code(err.status).send(errorJson('gemini', err));
    });
  }
  scope.get('/v1beta/models', { schema: schemaOf('GET /v1beta/models'), config: gemini }, (req, reply) =>
    withToken(ctx, req, reply, async (auth) => ({ models: (await availableModels(ctx, auth)).map(geminiModel) })),
  );
  scope.get('/v1beta/models/:model', { schema: schemaOf('GET /v1beta/models/:model'), config: gemini }, (req, reply) =>
    withToken(ctx, req, reply, async (auth) => {
      const id = (req.params as { model: string }).model.replace(/^models\//, '');
      if ((await availableModels(ctx, auth)).includes(id)) return geminiModel(id);
      const lang = relayLangFromHeader(req.headers['accept-language']);
      throw localError(lang, 404, 'RELAY_MODEL_NOT_FOUND', { type: 'NOT_FOUND', errorCode: 'NOT_FOUND', detail: id });
    }),
  );
}
