import { z } from 'zod';
import { windowMeter } from './plans.js';
import { resource, type RouteContract } from './contract.js';
import { openAIError } from './envelope.js';

/**
 * The OpenAI-compatible relay (`/v1`). These schemas document the wire format for the OpenAPI
 * document; the relay itself reads the raw bytes (one JSON.parse, bytes forwarded unchanged when
 * nothing must change) and checks only the fields it uses, so unknown fields always pass through.
 */
const message = z.looseObject({ role: z.string(), content: z.unknown() });
const maxTokens = z.number().int().min(0).optional();

export const chatCompletionBody = z
  .looseObject({
    model: z.string(),
    messages: z.array(message).min(1),
    stream: z.boolean().optional(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).optional(),
    max_tokens: maxTokens,
    max_completion_tokens: maxTokens,
    temperature: z.number().optional(),
  })
  .meta({ id: 'ChatCompletionRequest' });
export const completionBody = z.looseObject({ model: z.string(), prompt: z.unknown(), stream: z.boolean().optional(), max_tokens: maxTokens });
export const embeddingBody = z.looseObject({ model: z.string(), input: z.unknown() });
export const moderationBody = z.looseObject({ model: z.string().optional(), input: z.unknown() });
export const imageBody = z.looseObject({
  model: z.string().optional(),
  prompt: z.string(),
  n: z.number().int().min(1).max(10).optional(),
  size: z.string().optional(),
  quality: z.string().optional(),
});
export const speechBody = z.looseObject({ model: z.string(), input: z.string(), voice: z.string().optional() });
/** `/v1/images/edits` (and, without prompt and mask, `/variations`): OpenAI's multipart form. */
export const imageUploadBody = z.object({
  image: z.string().meta({ format: 'binary', description: 'The image (several as `image[]` for gpt-image-1 edits)' }),
  mask: z.string().meta({ format: 'binary' }).optional(),
  prompt: z.string().optional(),
  model: z.string().optional(),
  n: z.string().optional(),
  size: z.string().optional(),
  response_format: z.string().optional(),
  user: z.string().optional(),
});
export const audioUploadBody = z.object({ file: z.string().meta({ format: 'binary' }), model: z.string(), response_format: z.string().optional() });

const usage = z.looseObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int().optional(), total_tokens: z.number().int() });
/** Non-stream answer; with `stream: true` the answer is `text/event-stream` chunks ending in `data: [DONE]`. */
export const chatCompletion = z
  .looseObject({ id: z.string(), object: z.string(), created: z.number().int(), model: z.string(), choices: z.array(z.looseObject({ index: z.number().int() })), usage: usage.optional() })
  .meta({ id: 'ChatCompletion' });
const completion = z.looseObject({ id: z.string(), object: z.string(), created: z.number().int(), model: z.string(), choices: z.array(z.looseObject({})), usage: usage.optional() });
const embeddings = z.looseObject({ object: z.literal('list'), data: z.array(z.looseObject({ embedding: z.unknown(), index: z.number().int() })), model: z.string(), usage });
const moderation = z.looseObject({ id: z.string(), model: z.string(), results: z.array(z.unknown()) });
const images = z.looseObject({ created: z.number().int(), data: z.array(z.looseObject({ url: z.string().optional(), b64_json: z.string().optional() })) });
const transcription = z.looseObject({ text: z.string() });
const rerankDocument = z.union([z.string(), z.looseObject({ text: z.string() })]);
export const rerankBody = z
  .looseObject({ model: z.string(), query: z.string(), documents: z.array(rerankDocument).min(1), top_n: z.number().int().min(1).optional(), return_documents: z.boolean().optional() })
  .meta({ id: 'RerankRequest' });
const rerank = z.looseObject({
  results: z.array(z.looseObject({ index: z.number().int(), relevance_score: z.number(), document: z.looseObject({ text: z.string() }).optional() })),
  usage,
});

export const modelObject = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    created: z.number().int(),
    owned_by: z.string(),
    permission: z.array(z.unknown()),
    root: z.string(),
    parent: z.null(),
  })
  .meta({ id: 'Model' });
export const modelList = z.object({ object: z.literal('list'), success: z.literal(true), data: z.array(modelObject) });

const billingSubscription = z.object({
  object: z.literal('billing_subscription'),
  has_payment_method: z.boolean(),
  soft_limit_usd: z.number(),
  hard_limit_usd: z.number(),
  system_hard_limit_usd: z.number(),
  access_until: z.number().int(),
  /** ModelGate's: the windows bounding this key — its own, its user's, its user's plans (docs/ledger.md "Windows and plans"). */
  windows: z.array(windowMeter),
});
/** Used quota in cents of a dollar (or in quota units when the site does not display currency); `windows` as above. */
const billingUsage = z.object({ object: z.literal('list'), total_usage: z.number(), windows: z.array(windowMeter) });

const errors = { default: openAIError } as const;

/** Anthropic's error body, answered by the native `/v1/messages` routes. */
export const anthropicError = z
  .object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) })
  .meta({ id: 'AnthropicError' });
const anthropicErrors = { default: anthropicError } as const;
const anthropicMessage = z.looseObject({ role: z.enum(['user', 'assistant']), content: z.unknown() });
export const messagesBody = z
  .looseObject({
    model: z.string(),
    max_tokens: z.number().int().min(1),
    messages: z.array(anthropicMessage).min(1),
    system: z.unknown().optional(),
    stream: z.boolean().optional(),
  })
  .meta({ id: 'MessagesRequest' });
/** Non-stream answer; with `stream: true` the answer is Anthropic's `text/event-stream` events ending in `message_stop`. */
const messageReply = z
  .looseObject({
    id: z.string(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(z.looseObject({ type: z.string() })),
    stop_reason: z.string().nullable(),
    usage: z.looseObject({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
  })
  .meta({ id: 'Message' });
const countTokensBody = messagesBody.omit({ max_tokens: true });

/** Google's error body, answered by the native Gemini routes. */
export const geminiError = z
  .object({ error: z.object({ code: z.number().int(), message: z.string(), status: z.string() }) })
  .meta({ id: 'GeminiError' });
const geminiErrors = { default: geminiError } as const;
const geminiContent = z.looseObject({ role: z.string().optional(), parts: z.array(z.looseObject({})).min(1) });
export const generateContentBody = z
  .looseObject({
    contents: z.array(geminiContent).min(1),
    systemInstruction: geminiContent.optional(),
    generationConfig: z.looseObject({ maxOutputTokens: z.number().int().min(1).optional() }).optional(),
    tools: z.array(z.looseObject({})).optional(),
  })
  .meta({ id: 'GenerateContentRequest' });
/** Non-stream answer; `:streamGenerateContent` answers SSE chunks (`?alt=sse`) or a JSON array of them. */
const generateContentReply = z
  .looseObject({ candidates: z.array(z.looseObject({})).optional(), usageMetadata: z.looseObject({}).optional(), modelVersion: z.string().optional() })
  .meta({ id: 'GenerateContentResponse' });
const geminiModel = z.looseObject({ name: z.string(), displayName: z.string(), supportedGenerationMethods: z.array(z.string()) });
const geminiAction = z.object({ action: z.string().meta({ description: '`{model}:generateContent`, `:streamGenerateContent` or `:countTokens`' }) });
const geminiCall = (summary: string) =>
  ({
    auth: 'token',
    summary: `${summary}; the key may come in \`x-goog-api-key\` or \`?key=\``,
    params: geminiAction,
    querystring: z.looseObject({ alt: z.string().optional(), key: z.string().optional() }),
    body: generateContentBody.or(z.looseObject({ generateContentRequest: generateContentBody })),
    response: generateContentReply.or(z.object({ totalTokens: z.number().int() })),
    responses: geminiErrors,
  }) as const;

export const responsesBody = z
  .looseObject({
    model: z.string(),
    input: z.union([z.string(), z.array(z.looseObject({}))]),
    instructions: z.string().nullable().optional(),
    stream: z.boolean().optional(),
    max_output_tokens: z.number().int().min(1).nullable().optional(),
  })
  .meta({ id: 'ResponsesRequest' });
/** Non-stream answer; with `stream: true` the answer is the Responses event stream ending in `response.completed`. */
const responseObject = z
  .looseObject({ id: z.string(), object: z.literal('response'), status: z.string(), model: z.string(), output: z.array(z.looseObject({ type: z.string() })), usage: z.looseObject({}).nullable() })
  .meta({ id: 'Response' });
const relayCall = (summary: string, body: z.ZodType, response: z.ZodType, extra: Partial<RouteContract> = {}) =>
  ({ auth: 'token', summary, body, response, responses: errors, ...extra }) as const;
const notImplemented = (summary: string) => ({ auth: 'token', summary, responses: { 501: openAIError, default: openAIError } }) as const;

export const relayRoutes = resource('relay', {
  'OPTIONS /v1/*': { auth: 'public', summary: 'CORS preflight for browser clients', responses: { 204: z.null().meta({ description: 'No content' }) } },
  'POST /v1/chat/completions': relayCall('Chat completion (stream with `stream: true`)', chatCompletionBody, chatCompletion),
  'POST /v1/completions': relayCall('Text completion', completionBody, completion),
  'POST /v1/embeddings': relayCall('Embeddings', embeddingBody, embeddings),
  'POST /v1/engines/:model/embeddings': relayCall('Embeddings with the model in the path', embeddingBody.partial({ model: true }), embeddings, {
    params: z.object({ model: z.string() }),
  }),
  'POST /v1/moderations': relayCall('Moderation', moderationBody, moderation),
  'POST /v1/rerank': relayCall('Rerank documents against a query (Jina/Cohere shape; Jina, Cohere and SiliconCloud channels)', rerankBody, rerank),
  'POST /v1/images/generations': relayCall('Image generation', imageBody, images),
  'POST /v1/images/edits': relayCall('Image edit (multipart: image, mask, prompt); billed per image like generations', imageUploadBody, images, { consumes: ['multipart/form-data'] }),
  'POST /v1/images/variations': relayCall('Image variation (multipart: image); billed per image like generations', imageUploadBody.omit({ prompt: true, mask: true }), images, {
    consumes: ['multipart/form-data'],
  }),
  'GET /v1/realtime': {
    auth: 'token',
    summary:
      'Realtime API WebSocket (upgrade; `?model=`): frames relayed to an OpenAI or Azure channel, each `response.done` usage billed. The token may also come as the `openai-insecure-api-key.<token>` subprotocol',
    querystring: z.looseObject({ model: z.string() }),
    responses: errors,
  },
  'POST /v1/audio/speech': relayCall('Text to speech (answers audio bytes)', speechBody, z.string().meta({ format: 'binary' })),
  'POST /v1/audio/transcriptions': relayCall('Speech to text', audioUploadBody, transcription, { consumes: ['multipart/form-data'] }),
  'POST /v1/audio/translations': relayCall('Speech to English text', audioUploadBody, transcription, { consumes: ['multipart/form-data'] }),
  'POST /v1/messages': {
    auth: 'token',
    summary: 'Anthropic Messages (stream with `stream: true`); the key may also come in `x-api-key`',
    body: messagesBody,
    response: messageReply,
    responses: anthropicErrors,
  },
  'POST /v1/messages/count_tokens': {
    auth: 'token',
    summary: 'Prompt tokens of a Messages request, counted locally',
    body: countTokensBody,
    response: z.object({ input_tokens: z.number().int() }),
    responses: anthropicErrors,
  },
  'POST /pg/chat/completions': {
    auth: 'user',
    summary: 'The console playground: a chat completion billed to the signed-in user (session only, no API token), in `group` if given',
    body: chatCompletionBody.extend({ group: z.string().optional() }),
    response: chatCompletion,
    responses: errors,
  },
  'POST /v1/responses': relayCall('OpenAI Responses (stream with `stream: true`)', responsesBody, responseObject),
  'POST /v1beta/models/:action': geminiCall('Gemini generateContent, streamGenerateContent or countTokens'),
  'POST /v1/models/:action': geminiCall('Gemini generateContent, streamGenerateContent or countTokens (v1 path)'),
  'GET /v1beta/models': {
    auth: 'token',
    summary: 'Models the token may call, in Gemini’s shape',
    querystring: z.looseObject({ key: z.string().optional() }),
    response: z.object({ models: z.array(geminiModel) }),
    responses: geminiErrors,
  },
  'GET /v1beta/models/:model': {
    auth: 'token',
    summary: 'One model, in Gemini’s shape',
    params: z.object({ model: z.string() }),
    querystring: z.looseObject({ key: z.string().optional() }),
    response: geminiModel,
    responses: geminiErrors,
  },
  'GET /v1/models': { auth: 'token', summary: 'Models the token may call', response: modelList, responses: errors },
  'GET /v1/models/:model': { auth: 'token', summary: 'One model', params: z.object({ model: z.string() }), response: modelObject, responses: errors },
  'GET /v1/files': notImplemented('Not implemented'),
  'POST /v1/files': notImplemented('Not implemented'),
  'GET /v1/files/*': notImplemented('Not implemented'),
  'DELETE /v1/files/*': notImplemented('Not implemented'),
  'GET /v1/fine-tunes': notImplemented('Not implemented'),
  'POST /v1/fine-tunes': notImplemented('Not implemented'),
  'GET /v1/fine-tunes/*': notImplemented('Not implemented'),
  'POST /v1/fine-tunes/*': notImplemented('Not implemented'),
  'DELETE /v1/fine-tunes/*': notImplemented('Not implemented'),
  'DELETE /v1/models/:model': { ...notImplemented('Not implemented'), params: z.object({ model: z.string() }) },
  'GET /dashboard/billing/subscription': { auth: 'token', summary: 'The spending limit in dollars (OpenAI dashboard format)', response: billingSubscription, responses: errors },
  'GET /v1/dashboard/billing/subscription': { auth: 'token', summary: 'The spending limit in dollars (OpenAI dashboard format)', response: billingSubscription, responses: errors },
  'GET /dashboard/billing/usage': { auth: 'token', summary: 'Usage in cents (OpenAI dashboard format)', response: billingUsage, responses: errors },
  'GET /v1/dashboard/billing/usage': { auth: 'token', summary: 'Usage in cents (OpenAI dashboard format)', response: billingUsage, responses: errors },
});
export type ModelObject = z.infer<typeof modelObject>;
