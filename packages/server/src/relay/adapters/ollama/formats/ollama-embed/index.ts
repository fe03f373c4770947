import { emptyUsage } from '@modelgate/shared';
import { float32Base64, isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { BodyConverter } from '../../../../formats/types.js';

/** Ollama's native `POST /api/embed`: this folder's own wire format (see ProviderFormats in formats/types.ts). */
declare module '../../../../formats/types.js' {
  interface ProviderFormats {
    'ollama-embed': true;
  }
}

const FIELDS = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);

/**
 * OpenAI embeddings → Ollama's native `POST /api/embed` (providers-international §8.2):
 * `{model,input:[…],dimensions?}` → `{model,embeddings:[[…]],prompt_eval_count}`; the prompt
 * tokens Ollama evaluated are the usage (counted locally when it leaves them out).
 */
export const openAIEmbeddingsOllama: BodyConverter = {
  from: 'openai-embeddings',
  to: 'ollama-embed',
  request(body, cx) {
    for (const k of Object.keys(body)) if (!FIELDS.has(k)) throw unsupported(cx.lang, k, 'not supported by Ollama embeddings');
    const fmt = body.encoding_format;
    if (fmt !== undefined && fmt !== 'float' && fmt !== 'base64') throw unsupported(cx.lang, 'encoding_format', 'use float or base64');
    const input = body.input;
    const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string') ? input : undefined;
    // Token-id arrays name tokens of OpenAI's tokenizers, not the local model's.
    if (!texts) throw unsupported(cx.lang, 'input', 'Ollama embeds text: a string or a list of strings');
    const dims = body.dimensions;
    if (dims !== undefined && !(typeof dims === 'number' && Number.isInteger(dims) && dims > 0)) throw unsupported(cx.lang, 'dimensions', 'must be a positive integer');
    return { model: cx.model, input: texts, ...(dims ? { dimensions: dims } : {}) };
  },
  response(json, cx) {
    const list = (Array.isArray(json.embeddings) ? json.embeddings : []) as number[][];
    const wantsBase64 = cx.callerBody?.encoding_format === 'base64';
    const data = list.map((values, index) => ({ object: 'embedding', index, embedding: wantsBase64 ? float32Base64(values) : values }));
    const n = typeof json.prompt_eval_count === 'number' ? json.prompt_eval_count : 0;
    return { object: 'list', data, model: cx.callerModel, usage: { prompt_tokens: n, total_tokens: n } };
  },
  usage(json) {
    return typeof json.prompt_eval_count === 'number' && json.prompt_eval_count > 0 ? { ...emptyUsage(), promptTokens: json.prompt_eval_count } : undefined;
  },
  withUsage(reply, u) {
    reply.usage = { prompt_tokens: u.promptTokens, total_tokens: u.promptTokens };
  },
};

/** `GET /api/tags` → `{models:[{name,model,…}]}`: the names. */
export function ollamaTagNames(json: unknown): string[] {
  const models = isObj(json) && Array.isArray(json.models) ? json.models : [];
  return models.map((m) => (isObj(m) ? String(m.name ?? m.model ?? '') : '')).filter(Boolean);
}
