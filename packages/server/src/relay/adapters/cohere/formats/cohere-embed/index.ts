import { emptyUsage } from '@modelgate/shared';
import { float32Base64, isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { BodyConverter } from '../../../../formats/types.js';

/** Cohere `POST /v2/embed`: this folder's own wire format (see ProviderFormats in formats/types.ts). */
declare module '../../../../formats/types.js' {
  interface ProviderFormats {
    'cohere-embed': true;
  }
}

const FIELDS = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);

/**
 * OpenAI embeddings → Cohere `POST /v2/embed` (providers-international §6.3): the inputs as
 * `texts`, `input_type: "search_document"` (required by v3+ models; OpenAI has no such notion),
 * float embeddings asked for explicitly; the reply's `embeddings.float` back as OpenAI data with the
 * billed input tokens as usage.
 */
export const openAIEmbeddingsCohere: BodyConverter = {
  from: 'openai-embeddings',
  to: 'cohere-embed',
  request(body, cx) {
    for (const k of Object.keys(body)) if (!FIELDS.has(k)) throw unsupported(cx.lang, k, 'not supported by Cohere embeddings');
    const fmt = body.encoding_format;
    if (fmt !== undefined && fmt !== 'float' && fmt !== 'base64') throw unsupported(cx.lang, 'encoding_format', 'use float or base64');
    const input = body.input;
    const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string') ? input : undefined;
    if (!texts) throw unsupported(cx.lang, 'input', 'Cohere embeds text: a string or a list of strings');
    const out: Record<string, unknown> = { model: cx.model, texts, input_type: 'search_document', embedding_types: ['float'] };
    if (body.dimensions !== undefined) out.output_dimension = body.dimensions;
    return out;
  },
  response(json, cx) {
    const e = json.embeddings;
    const list = (isObj(e) && Array.isArray(e.float) ? e.float : Array.isArray(e) ? e : []) as number[][];
    const wantsBase64 = cx.callerBody?.encoding_format === 'base64';
    const data = list.map((values, index) => ({ object: 'embedding', index, embedding: wantsBase64 ? float32Base64(values) : values }));
    const billed = isObj(json.meta) && isObj(json.meta.billed_units) ? Number(json.meta.billed_units.input_tokens ?? 0) : 0;
    return { object: 'list', data, model: cx.callerModel, usage: { prompt_tokens: billed, total_tokens: billed } };
  },
  usage(json) {
    const billed = isObj(json.meta) && isObj(json.meta.billed_units) ? json.meta.billed_units.input_tokens : undefined;
    return typeof billed === 'number' ? { ...emptyUsage(), promptTokens: billed } : undefined;
  },
  withUsage(reply, u) {
    reply.usage = { prompt_tokens: u.promptTokens, total_tokens: u.promptTokens };
  },
};
