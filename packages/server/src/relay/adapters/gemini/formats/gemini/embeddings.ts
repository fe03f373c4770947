import type { Usage } from '@modelgate/shared';
import { float32Base64, isObj, unsupported } from '../../../../formats/shared/wire.js';
import type { BodyConverter, ConvertContext } from '../../../../formats/types.js';

const FIELDS = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);

function inputs(body: Record<string, unknown>, cx: ConvertContext): string[] {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string')) return input as string[];
  // Token-id arrays name tokens of OpenAI's tokenizers: Gemini embeds text only.
  throw unsupported(cx.lang, 'input', 'Gemini embeds text: a string or a list of strings');
}

/**
 * OpenAI embeddings → Gemini `batchEmbedContents` (providers-international §2.4): one request per
 * input, so a list is embedded whole (the reference embedded only the first). Gemini reports no
 * usage: the prompt is counted locally and written into the reply.
 */
export const openAIEmbeddingsGemini: BodyConverter = {
  from: 'openai-embeddings',
  to: 'gemini-embeddings',
  request(body, cx) {
    for (const k of Object.keys(body)) if (!FIELDS.has(k)) throw unsupported(cx.lang, k, 'not supported by Gemini embeddings');
    const fmt = body.encoding_format;
    if (fmt !== undefined && fmt !== 'float' && fmt !== 'base64') throw unsupported(cx.lang, 'encoding_format', 'use float or base64');
    const dims = body.dimensions;
    if (dims !== undefined && !(typeof dims === 'number' && Number.isInteger(dims) && dims > 0)) throw unsupported(cx.lang, 'dimensions', 'must be a positive integer');
    const model = `models/${cx.model}`;
    return {
      requests: inputs(body, cx).map((text) => ({ model, content: { parts: [{ text }] }, ...(dims ? { outputDimensionality: dims } : {}) })),
    };
  },
  response(json, cx) {
    const list = Array.isArray(json.embeddings) ? json.embeddings : [];
    const wantsBase64 = cx.callerBody?.encoding_format === 'base64';
    const data = list.map((e, index) => {
      const values = isObj(e) && Array.isArray(e.values) ? (e.values as number[]) : [];
      return { object: 'embedding', index, embedding: wantsBase64 ? float32Base64(values) : values };
    });
    return { object: 'list', data, model: cx.callerModel, usage: { prompt_tokens: 0, total_tokens: 0 } };
  },
  withUsage(reply: Record<string, unknown>, u: Usage) {
    reply.usage = { prompt_tokens: u.promptTokens, total_tokens: u.promptTokens };
  },
};
