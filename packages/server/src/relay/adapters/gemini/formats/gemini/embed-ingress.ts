import type { Lang, Usage } from '@modelgate/shared';
import { readUsage } from '../../../../billing/pricing.js';
import { isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { BodyConverter } from '../../../../formats/types.js';
import { camelize } from './camel.js';
import { invalidGeminiField } from './validate.js';

/**
 * Gemini's embedding methods as a caller speaks them (ai.google.dev/api/embeddings):
 * `:batchEmbedContents` (`{requests:[EmbedContentRequest]}` → `{embeddings:[{values}]}`, the
 * `gemini-embeddings` format, also what the Gemini adapter sends) and `:embedContent`
 * (`EmbedContentRequest` → `{embedding:{values}}`, `gemini-embed-content`). The single form is
 * carried as a one-request batch; OpenAI-format channels get `/v1/embeddings`.
 */

const REQUEST_FIELDS = new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']);

/** Checks one EmbedContentRequest (camelCase); `at` names it in errors. */
function checkRequest(lang: Lang, at: string, r: unknown, model: string): void {
  const where = (f: string) => (at ? `${at}.${f}` : f);
  if (!isObj(r)) throw invalidGeminiField(lang, at || 'body', 'Input should be an EmbedContentRequest object');
  for (const k of Object.keys(r)) if (!REQUEST_FIELDS.has(k)) throw invalidGeminiField(lang, where(k), `Invalid JSON payload received. Unknown name "${k}"`);
  if (r.model !== undefined && String(r.model).replace(/^models\//, '') !== model) {
    throw invalidGeminiField(lang, where('model'), `must be models/${model}, the model of the URL`);
  }
  const c = r.content;
  if (!isObj(c) || !Array.isArray(c.parts) || c.parts.length === 0) throw invalidGeminiField(lang, where('content.parts'), 'must contain at least one part');
  c.parts.forEach((p, j) => {
    if (!isObj(p) || typeof p.text !== 'string') throw invalidGeminiField(lang, where(`content.parts[${j}].text`), 'embeddings take text parts');
  });
  const dims = r.outputDimensionality;
  if (dims !== undefined && !(typeof dims === 'number' && Number.isInteger(dims) && dims > 0)) throw invalidGeminiField(lang, where('output_dimensionality'), 'must be a positive integer');
}

/** Validates a caller's `:batchEmbedContents` (`batch`) or `:embedContent` body; both spellings of field names. */
export function validateGeminiEmbedBody(lang: Lang, raw: Record<string, unknown>, model: string, batch: boolean): void {
  const body = camelize(raw) as Record<string, unknown>;
  if (!batch) return checkRequest(lang, '', body, model);
  for (const k of Object.keys(body)) if (k !== 'requests') throw invalidGeminiField(lang, k, `Invalid JSON payload received. Unknown name "${k}"`);
  if (!Array.isArray(body.requests) || body.requests.length === 0) throw invalidGeminiField(lang, 'requests', 'requests is not specified');
  body.requests.forEach((r, i) => checkRequest(lang, `requests[${i}]`, r, model));
}

/** The EmbedContentRequests of a caller's body (either form), camelCase. */
function requestsOf(raw: Record<string, unknown>): Array<Record<string, unknown>> {
  const body = camelize(raw) as Record<string, unknown>;
  return Array.isArray(body.requests) ? body.requests.filter(isObj) : [body];
}

const textOf = (r: Record<string, unknown>) => (isObj(r.content) && Array.isArray(r.content.parts) ? r.content.parts.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('\n') : '');

/** The texts a caller's embedding body embeds, one per request (parts joined by a newline): what is counted locally. */
export function geminiEmbedTexts(raw: Record<string, unknown>): string[] {
  return requestsOf(raw).map(textOf);
}

/** `:embedContent` → `:batchEmbedContents` with one request, and the reply back. */
export const geminiEmbedContentBatch: BodyConverter = {
  from: 'gemini-embed-content',
  to: 'gemini-embeddings',
  request(body, cx) {
    return { requests: [{ ...body, model: `models/${cx.model}` }] };
  },
  response(json) {
    const list = Array.isArray(json.embeddings) ? json.embeddings : [];
    return { embedding: list[0] ?? { values: [] } };
  },
};

/**
 * Gemini batch → OpenAI `/v1/embeddings`: the texts become `input`; `outputDimensionality`
 * becomes `dimensions` (one value for the whole batch). `taskType` and `title` tune Gemini's own
 * models and have no OpenAI counterpart: refused, not dropped.
 */
export const geminiEmbeddingsOpenAI: BodyConverter = {
  from: 'gemini-embeddings',
  to: 'openai-embeddings',
  request(raw, cx) {
    const requests = requestsOf(raw);
    const at = (i: number, f: string) => (Array.isArray(raw.requests) ? `requests[${i}].${f}` : f);
    const dims = new Set<unknown>();
    requests.forEach((r, i) => {
      if (r.taskType !== undefined) throw unsupported(cx.lang, at(i, 'task_type'), 'OpenAI-format embedding models take no task type');
      if (r.title !== undefined) throw unsupported(cx.lang, at(i, 'title'), 'OpenAI-format embedding models take no title');
      dims.add(r.outputDimensionality);
    });
    if (dims.size > 1) throw unsupported(cx.lang, 'requests[].output_dimensionality', 'must be the same for every request of the batch');
    const d = [...dims][0];
    return { model: cx.model, input: requests.map(textOf), encoding_format: 'float', ...(typeof d === 'number' ? { dimensions: d } : {}) };
  },
  response(json) {
    const data = Array.isArray(json.data) ? json.data.filter(isObj) : [];
    const ordered = [...data].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
    return { embeddings: ordered.map((e) => ({ values: Array.isArray(e.embedding) ? e.embedding : [] })) };
  },
  usage(json): Usage | undefined {
    return readUsage(json.usage);
  },
};

/** `:embedContent` → OpenAI: the batch conversion of a one-request batch, the reply unwrapped. */
export const geminiEmbedContentOpenAI: BodyConverter = {
  from: 'gemini-embed-content',
  to: 'openai-embeddings',
  request(body, cx) {
    return geminiEmbeddingsOpenAI.request(body, cx);
  },
  response(json, cx) {
    return geminiEmbedContentBatch.response(geminiEmbeddingsOpenAI.response(json, cx), cx);
  },
  usage: geminiEmbeddingsOpenAI.usage,
};
