import { providerFixture } from '../provider-fixtures.js';
import { FAKE_GEMINI_ARGS, FAKE_GEMINI_THOUGHT, chooseFunction, expectedGeminiUsage, replyWords, thinking, type GeminiUsage } from './usage.js';

export interface ReplyPlan {
  model: string;
  responseId: string;
  /** The thought text returned as a `thought` part (includeThoughts), or null. */
  thought: string | null;
  words: string[];
  call: string | null;
  finishReason: 'STOP' | 'MAX_TOKENS';
  usage: GeminiUsage;
}

export function plan(body: Record<string, unknown>, opts: { model: string; chunkCount: number; cachedTokens: number; responseId: string }): ReplyPlan {
  const usage = expectedGeminiUsage(body, { chunkCount: opts.chunkCount, cachedTokens: opts.cachedTokens });
  const call = chooseFunction(body);
  const { words, truncated } = replyWords(body, opts.chunkCount);
  return {
    model: opts.model,
    responseId: opts.responseId,
    thought: thinking(body).shown ? FAKE_GEMINI_THOUGHT : null,
    words: call ? [] : words,
    call,
    finishReason: !call && truncated ? 'MAX_TOKENS' : 'STOP',
    usage,
  };
}

type Obj = Record<string, unknown>;

/**
 * Gemini's documented answer and stream (server/src/relay/adapters/gemini/fixtures) are the
 * fake's templates: a reply carries the documented fields, in the documented order, with this
 * request's parts, ids and usage put in. A field the fake has no value for (log probabilities, a
 * cache or thought count of zero) is left out, as the API leaves it out.
 */
const ANSWER = providerFixture('gemini', 'generate.response').body as Obj;
const STREAM = providerFixture('gemini', 'generate.stream').events as Obj[];
/** A running chunk (no finishReason) and the final one, as documented. */
const RUNNING_CHUNK = STREAM.find((e) => !('finishReason' in firstCandidate(e)))!;
const FINAL_CHUNK = STREAM.at(-1)!;

function firstCandidate(body: Obj): Obj {
  return (body.candidates as Obj[])[0]!;
}

/** The template's fields, in its order, that `values` has a value for (extra values are dropped). */
function fill(template: Obj, values: Obj): Obj {
  return Object.fromEntries(Object.keys(template).flatMap((k) => (values[k] === undefined ? [] : [[k, values[k]]])));
}

function response(p: ReplyPlan, template: Obj, parts: Obj[], final: boolean): Obj {
  const candidate = fill(firstCandidate(template), { content: fill(firstCandidate(template).content as Obj, { role: 'model', parts }), finishReason: final ? p.finishReason : undefined, index: 0 });
  const cached = p.usage.cachedContentTokenCount;
  const usage = final
    ? {
        ...p.usage,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: p.usage.promptTokenCount }],
        cacheTokensDetails: cached ? [{ modality: 'TEXT', tokenCount: cached }] : undefined,
      }
    : // A running chunk reports the prompt only: the reply's tokens are counted on the last one.
      { promptTokenCount: p.usage.promptTokenCount, totalTokenCount: p.usage.promptTokenCount };
  return fill(template, { candidates: [candidate], usageMetadata: fill(template.usageMetadata as Obj, usage), modelVersion: p.model, responseId: p.responseId });
}

/** The non-stream GenerateContentResponse. */
export function generateReply(p: ReplyPlan): Obj {
  const parts: Obj[] = [];
  if (p.thought) parts.push({ text: p.thought, thought: true });
  if (p.call) parts.push({ functionCall: { name: p.call, args: FAKE_GEMINI_ARGS } });
  else parts.push({ text: p.words.join(' ') });
  return response(p, ANSWER, parts, true);
}

/**
 * The stream (providers-international §2.3): a thought chunk first (includeThoughts), then one
 * chunk per word with the running usage, the last carrying finishReason and the final usage; a
 * function call arrives whole in one (final) chunk.
 */
export function* chunks(p: ReplyPlan): Generator<Obj> {
  yield* chunkParts(p, (parts, final) => response(p, final ? FINAL_CHUNK : RUNNING_CHUNK, parts, final));
}

/** The order of a plan's stream chunks, each built by `chunk` from its parts (Gemini's and Vertex's fakes). */
export function* chunkParts(p: ReplyPlan, chunk: (parts: Obj[], final: boolean) => Obj): Generator<Obj> {
  if (p.thought) yield chunk([{ text: p.thought, thought: true }], false);
  if (p.call) {
    yield chunk([{ functionCall: { name: p.call, args: FAKE_GEMINI_ARGS } }], true);
    return;
  }
  for (const [i, w] of p.words.entries()) yield chunk([{ text: i === 0 ? w : ` ${w}` }], i === p.words.length - 1);
  if (p.words.length === 0) yield chunk([{ text: '' }], true);
}
