import type { Lang } from '@modelgate/shared';
import type { RelayMode } from './adapters/types.js';
import { validateMessagesBody } from './adapters/anthropic/formats/anthropic-messages/validate.js';
import { validateGeminiEmbedBody } from './adapters/gemini/formats/gemini/embed-ingress.js';
import { geminiMaxTokens, validateGeminiBody } from './adapters/gemini/formats/gemini/validate.js';
import { validateResponsesBody } from './formats/openai-responses/validate.js';
import { rerankProblem } from './formats/rerank/index.js';
import { parseImageUploadInput } from './image-upload.js';
import { localError, RelayError } from './relay-error.js';
import { jsonShapeProblem, RELAY_JSON_LIMITS, type JsonShapeProblem } from '../http/json-shape.js';
import { boundaryOf, multipartField, type RelayInput, type RelayRoute } from './relay-input.js';

export { boundaryOf, multipartField, type RelayInput, type RelayRoute };

const MAX_TOKENS_LIMIT = 2 ** 30;

function invalid(message: string, param: string | null = null): RelayError {
  return new RelayError(400, 'invalid_request_error', 'invalid_text_request', message, param);
}

/** A body past the relay's JSON nesting or array limit (http/json-shape.ts): 400 before any parse. */
export function jsonShapeRelayError(lang: Lang, problem: JsonShapeProblem): RelayError {
  const code = problem.kind === 'depth' ? 'JSON_TOO_DEEP' : 'JSON_ARRAY_TOO_LONG';
  return localError(lang, 400, code, { type: 'invalid_request_error', errorCode: problem.kind === 'depth' ? 'json_too_deep' : 'json_array_too_long', detail: String(problem.limit) });
}

/** Throws the relay's 400 when `raw` breaks a JSON limit (a linear scan, no parse). */
export function assertRelayJsonShape(raw: Uint8Array, lang: Lang): void {
  const problem = jsonShapeProblem(raw, RELAY_JSON_LIMITS);
  if (problem) throw jsonShapeRelayError(lang, problem);
}

function parseJson(raw: Buffer, lang: Lang): Record<string, unknown> {
  assertRelayJsonShape(raw, lang);
  let v: unknown;
  try {
    v = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalid('invalid JSON body');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalid('the request body must be a JSON object');
  return v as Record<string, unknown>;
}

/** A Messages body (`POST /v1/messages`): Anthropic's required fields, each refusal naming its field. */
function parseMessagesInput(route: RelayRoute, raw: Buffer, lang: Lang): RelayInput {
  const body = parseJson(raw, lang);
  validateMessagesBody(lang, body);
  const stream = body.stream === true;
  return { ...route, model: body.model as string, stream, clientWantsUsage: false, body, raw, contentType: 'application/json', maxTokens: body.max_tokens as number };
}

/** A GenerateContentRequest (`POST /v1beta/models/{model}:…`): the model and streaming come from the URL. */
function parseGeminiInput(route: RelayRoute, raw: Buffer, lang: Lang, pathModel: string | undefined): RelayInput {
  const body = parseJson(raw, lang);
  validateGeminiBody(lang, body);
  if (!pathModel) throw invalid('model is required', 'model');
  const stream = route.stream === true;
  const { mode, format } = route;
  return { mode, format, model: pathModel, stream, jsonArray: stream && route.jsonArray, clientWantsUsage: false, body, raw, contentType: 'application/json', maxTokens: geminiMaxTokens(body) };
}

/** A Gemini `:batchEmbedContents` or `:embedContent` body: the model comes from the URL. */
function parseGeminiEmbedInput(route: RelayRoute, raw: Buffer, lang: Lang, pathModel: string | undefined): RelayInput {
  const body = parseJson(raw, lang);
  if (!pathModel) throw invalid('model is required', 'model');
  validateGeminiEmbedBody(lang, body, pathModel, route.format === 'gemini-embeddings');
  return { mode: route.mode, format: route.format, model: pathModel, stream: false, clientWantsUsage: false, body, raw, contentType: 'application/json', maxTokens: undefined };
}

/** A Responses request (`POST /v1/responses`); its usage always comes with `response.completed`. */
function parseResponsesInput(route: RelayRoute, raw: Buffer, lang: Lang): RelayInput {
  const body = parseJson(raw, lang);
  validateResponsesBody(lang, body);
  const max = body.max_output_tokens;
  return { mode: route.mode, format: route.format, model: body.model as string, stream: body.stream === true, clientWantsUsage: false, body, raw, contentType: 'application/json', maxTokens: typeof max === 'number' ? max : undefined };
}

/** Parses and validates the inbound body of a route (reference §3.1 defaults, §3.2 rules). */
export function parseRelayInput(route: RelayRoute, raw: Buffer, contentType: string, lang: Lang, pathModel?: string): RelayInput {
  const { mode, format } = route;
  if (format === 'anthropic-messages') return parseMessagesInput(route, raw, lang);
  if (format === 'gemini') return parseGeminiInput(route, raw, lang, pathModel);
  if (format === 'gemini-embeddings' || format === 'gemini-embed-content') return parseGeminiEmbedInput(route, raw, lang, pathModel);
  if (format === 'openai-responses') return parseResponsesInput(route, raw, lang);
  if (mode === 'image-edits' || mode === 'image-variations') return parseImageUploadInput(route, raw, contentType);
  if (mode === 'transcriptions' || mode === 'translations') {
    const boundary = boundaryOf(contentType);
    if (!contentType.toLowerCase().startsWith('multipart/form-data') || !boundary) {
      throw invalid('the request must be multipart/form-data');
    }
    const model = multipartField(raw, boundary, 'model');
    const responseFormat = multipartField(raw, boundary, 'response_format');
    return {
      mode,
      format,
      model: model?.value.trim() || 'whisper-1',
      stream: false,
      clientWantsUsage: false,
      body: null,
      raw,
      contentType,
      maxTokens: undefined,
      multipartModel: model ? { start: model.start, end: model.end } : undefined,
      responseFormat: responseFormat?.value.trim() || 'json',
    };
  }
  const body = parseJson(raw, lang);
  const defaults: Partial<Record<RelayMode, string>> = {
    moderations: 'text-moderation-stable',
    images: 'dall-e-2',
    speech: 'tts-1',
  };
  const model = typeof body.model === 'string' && body.model ? body.model : (pathModel ?? defaults[mode] ?? '');
  if (!model) throw invalid('model is required', 'model');
  const stream = (mode === 'chat' || mode === 'completions') && body.stream === true;
  const so = body.stream_options as { include_usage?: unknown } | undefined;
  const rawMax = body.max_completion_tokens ?? body.max_tokens;
  let maxTokens: number | undefined;
  if (rawMax !== undefined && rawMax !== null) {
    if (typeof rawMax !== 'number' || !Number.isInteger(rawMax) || rawMax < 0 || rawMax > MAX_TOKENS_LIMIT) {
      throw invalid('max_tokens is invalid', 'max_tokens');
    }
    maxTokens = rawMax;
  }
  switch (mode) {
    case 'chat':
      if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('field messages is required', 'messages');
      break;
    case 'completions':
      if (body.prompt === undefined || body.prompt === null) throw invalid('field prompt is required', 'prompt');
      break;
    case 'embeddings':
    case 'moderations':
      if (body.input === undefined || body.input === null || body.input === '') throw invalid('field input is required', 'input');
      break;
    case 'images':
      if (typeof body.prompt !== 'string' || !body.prompt) throw invalid('prompt is required', 'prompt');
      break;
    case 'speech':
      if (typeof body.input !== 'string' || !body.input) throw invalid('input is required', 'input');
      break;
    case 'rerank': {
      const problem = rerankProblem(body);
      if (problem) throw invalid(problem.message, problem.param);
      break;
    }
  }
  const input: RelayInput = {
    mode,
    format,
    model,
    stream,
    clientWantsUsage: stream && !!so && so.include_usage === true,
    body,
    raw,
    contentType: 'application/json',
    maxTokens,
  };
  if (mode === 'images') {
    const n = body.n === undefined || body.n === null ? 1 : body.n;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 10) throw invalid('n must be an integer from 1 to 10', 'n');
    const size = typeof body.size === 'string' && body.size ? body.size : '1024x1024';
    if (size.includes('×')) throw invalid('size must be written like 1024x1024', 'size');
    input.image = { size, quality: typeof body.quality === 'string' ? body.quality : 'standard', n };
  }
  return input;
}
