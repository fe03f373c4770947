import type { Usage } from '@modelgate/shared';
import type { ConvertedReply } from '../../adapters/types.js';
import { isObj } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';

/**
 * The rerank wire format shared by Jina, Cohere v1 and SiliconCloud (providers-international §6.3,
 * §8.3): `{model, query, documents: [string | {text}], top_n?, return_documents?}` →
 * `{results: [{index, relevance_score, document?: {text}}]}` plus each vendor's own usage fields.
 * Callers get the results with an OpenAI-style `usage` of what was billed.
 */

/** The text of each document, for counting. */
export function rerankDocumentTexts(documents: unknown): string[] {
  if (!Array.isArray(documents)) return [];
  return documents.map((d) => (typeof d === 'string' ? d : isObj(d) && typeof d.text === 'string' ? d.text : ''));
}

/** The first problem of a rerank body, worded for the caller, or undefined. */
export function rerankProblem(body: Record<string, unknown>): { message: string; param: string } | undefined {
  if (typeof body.query !== 'string' || !body.query) return { message: 'field query is required', param: 'query' };
  if (!Array.isArray(body.documents) || body.documents.length === 0) return { message: 'field documents is required (a non-empty list)', param: 'documents' };
  const bad = body.documents.findIndex((d) => !(typeof d === 'string' || (isObj(d) && typeof d.text === 'string')));
  if (bad >= 0) return { message: `documents[${bad}] must be a string or {"text": string}`, param: `documents.${bad}` };
  if (body.top_n !== undefined && body.top_n !== null && !(typeof body.top_n === 'number' && Number.isInteger(body.top_n) && body.top_n >= 1)) {
    return { message: 'top_n must be a positive integer', param: 'top_n' };
  }
  if (body.return_documents !== undefined && body.return_documents !== null && typeof body.return_documents !== 'boolean') {
    return { message: 'return_documents must be a boolean', param: 'return_documents' };
  }
  return undefined;
}

/** `{index, relevance_score, document?}` of one result; a bare string document becomes `{text}`. */
function result(r: unknown): Record<string, unknown> | undefined {
  if (!isObj(r) || typeof r.index !== 'number' || typeof r.relevance_score !== 'number') return undefined;
  const out: Record<string, unknown> = { index: r.index, relevance_score: r.relevance_score };
  if (typeof r.document === 'string') out.document = { text: r.document };
  else if (isObj(r.document) && typeof r.document.text === 'string') out.document = { text: r.document.text };
  return out;
}

/**
 * An upstream rerank reply in the caller's shape. The usage is always counted locally (the
 * reference's rule), so the reply reports none and the billed usage is written in afterwards.
 */
export function rerankReply(json: Record<string, unknown>, cx: ConvertContext): ConvertedReply {
  const results = (Array.isArray(json.results) ? json.results : []).map(result).filter((r): r is Record<string, unknown> => !!r);
  const body: Record<string, unknown> = { ...(typeof json.id === 'string' ? { id: json.id } : {}), model: cx.callerModel, results };
  return {
    body,
    usage: undefined,
    text: () => '',
    withUsage: (u: Usage) => {
      body.usage = { prompt_tokens: u.promptTokens, completion_tokens: 0, total_tokens: u.promptTokens };
    },
  };
}
