import { events, messageReply, type ReplyPlan as ClaudePlan } from '../anthropic-fake/reply.js';
import { FAKE_GEMINI_ARGS } from '../gemini-fake/usage.js';
import { chunkParts, type ReplyPlan as GeminiPlan } from '../gemini-fake/reply.js';
import { providerFixture, providerFixtureNames } from '../provider-fixtures.js';

/**
 * Vertex AI's documented examples (server/src/relay/adapters/vertex/fixtures) are the fake's
 * templates: its answers, stream events, error bodies and token answers carry the documented
 * fields, in the documented order, with this request's words, ids and counts put in. What the
 * model says and counts comes from the Gemini and Anthropic fakes' plans; the Vertex envelope
 * (createTime, trafficType, `msg_vrtx_` answers, Google errors) from the fixtures. The adapter's
 * tests read the same files, so the fake and the adapter cannot disagree on a field.
 */
type Obj = Record<string, unknown>;

const body = (name: string): Obj => providerFixture('vertex', name).body as Obj;
const eventsOf = (name: string): Obj[] => providerFixture('vertex', name).events as Obj[];

/** The template's fields, in its order, that `values` has a value for (a field the fake has no value for is left out). */
function fill(template: Obj, values: Obj): Obj {
  return Object.fromEntries(Object.keys(template).flatMap((k) => (values[k] === undefined ? [] : [[k, values[k]]])));
}

// ---- The token endpoint ----

const TOKEN = body('oauth.token.response');
const TOKEN_REFUSAL = providerFixture('vertex', 'oauth.error.invalid-grant');

/** The token endpoint's answer, as documented, with this token and lifetime. */
export function tokenAnswer(accessToken: string, expiresIn: number): Obj {
  return fill(TOKEN, { ...TOKEN, access_token: accessToken, expires_in: expiresIn });
}

/** The token endpoint's refusal body (`{error, error_description}`), as documented. */
export function tokenRefusal(error: string, description: string): Obj {
  return fill(TOKEN_REFUSAL.body as Obj, { error, error_description: description });
}

/** The status the token endpoint refuses a grant with. */
export const TOKEN_REFUSAL_STATUS = TOKEN_REFUSAL.status!;

// ---- Google errors ----

interface DocumentedError {
  status: number;
  error: { code: number; message: string; status: string; details?: Obj[] };
}

/** The documented Google errors (plain envelopes; the array-wrapped Claude quota error is the same error). */
const GOOGLE_ERRORS: DocumentedError[] = providerFixtureNames('vertex')
  .filter((n) => n.startsWith('error.'))
  .map((n) => providerFixture('vertex', n))
  .flatMap((fx) => {
    const b = (Array.isArray(fx.body) ? fx.body[0] : fx.body) as Obj;
    const error = b.error as DocumentedError['error'] | undefined;
    return !Array.isArray(fx.body) && error && typeof error.status === 'string' ? [{ status: fx.status!, error }] : [];
  });

const reasonOf = (d: DocumentedError) => d.error.details?.find((x) => x['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;

/** The documented message of a Google status, for a refusal that words nothing of its own. */
export function documentedMessage(googleStatus: string): string {
  const found = GOOGLE_ERRORS.find((d) => d.error.status === googleStatus)?.error.message;
  if (!found) throw new Error(`no vertex error fixture documents ${googleStatus}`);
  return found;
}

/**
 * Google's error body: the documented error of the same Google status with this code and message.
 * Its ErrorInfo detail comes along only when the refusal names the documented reason, with the
 * metadata fields the fake has values for (`permission`, `resource`) put in; otherwise no details.
 */
export function googleErrorBody(e: { status: number; googleStatus: string; message: string; reason?: string; metadata?: Obj }): Obj {
  const doc = GOOGLE_ERRORS.find((d) => d.error.status === e.googleStatus);
  const template = doc?.error ?? { code: 0, message: '', status: '' };
  const details = e.reason && doc && reasonOf(doc) === e.reason ? doc.error.details!.map((d) => (d.reason === e.reason && e.metadata ? { ...d, metadata: { ...(d.metadata as Obj), ...e.metadata } } : d)) : undefined;
  return { error: fill({ ...template, details: [] }, { code: e.status, message: e.message, status: e.googleStatus, details }) };
}

// ---- Claude on publishers/anthropic ----

const CLAUDE_ANSWER = body('claude.response');
const CLAUDE_STREAM = eventsOf('claude.stream');
const CLAUDE_ERROR = body('error.claude-invalid-request');
/** The status of the documented Claude error: what a refused Claude body answers with. */
export const CLAUDE_ERROR_STATUS = providerFixture('vertex', 'error.claude-invalid-request').status!;

const claudeEvent = (type: string): Obj => CLAUDE_STREAM.find((e) => e.type === type)!;

/** The plan's usage in the documented usage fields. */
function claudeUsage(p: ClaudePlan, template: Obj, outputTokens: number): Obj {
  return fill(template, { ...p.usage, output_tokens: outputTokens });
}

/** The rawPredict answer: the documented message with this plan's id, model, blocks, stop reason and usage. */
export function claudeAnswer(p: ClaudePlan): Obj {
  const reply = messageReply(p);
  return fill(CLAUDE_ANSWER, { ...reply, usage: claudeUsage(p, CLAUDE_ANSWER.usage as Obj, p.usage.output_tokens) });
}

/**
 * The streamRawPredict events in Anthropic's order (anthropic-fake/reply.ts `events`): message_start
 * with the message in the documented field order, message_delta with the final output count only,
 * as Vertex sends them. Yields `[event name, data]`.
 */
export function* claudeEvents(p: ClaudePlan, chunkCount: number): Generator<[string, Obj]> {
  for (const [name, data] of events(p, chunkCount)) {
    if (name === 'message_start') {
      const message = (claudeEvent('message_start').message as Obj) ?? {};
      const values = { ...claudeAnswer(p), content: [], stop_reason: null, stop_sequence: null, usage: claudeUsage(p, message.usage as Obj, 1) };
      yield [name, { ...data, message: fill(message, values) }];
    } else if (name === 'message_delta') {
      const documented = claudeEvent('message_delta');
      yield [name, fill(documented, { ...data, usage: fill(documented.usage as Obj, { output_tokens: p.usage.output_tokens }) })];
    } else yield [name, data];
  }
}

/** A refused Claude body, in the documented envelope (Anthropic's, without a request_id). */
export function claudeErrorBody(type: string, message: string): Obj {
  return fill(CLAUDE_ERROR, { ...CLAUDE_ERROR, error: fill(CLAUDE_ERROR.error as Obj, { type, message }) });
}

// ---- Gemini on publishers/google ----

const GEMINI_ANSWER = body('gemini.response');
const GEMINI_STREAM = eventsOf('gemini.stream');
const firstCandidate = (b: Obj): Obj => (b.candidates as Obj[])[0]!;
/** A running chunk (no finishReason) and the final one, as documented. */
const RUNNING_CHUNK = GEMINI_STREAM.find((e) => !('finishReason' in firstCandidate(e)))!;
const FINAL_CHUNK = GEMINI_STREAM.at(-1)!;

function geminiResponse(p: GeminiPlan, template: Obj, parts: Obj[], final: boolean, createTime: string): Obj {
  const t = firstCandidate(template);
  // No avgLogprobs: the fake computes no log probabilities.
  const candidate = fill(t, { content: fill(t.content as Obj, { role: 'model', parts }), finishReason: final ? p.finishReason : undefined });
  const usageTemplate = template.usageMetadata as Obj;
  // A running chunk reports only what its template documents (the traffic type); the counts come on the last.
  const usage = final
    ? {
        ...p.usage,
        trafficType: usageTemplate.trafficType,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: p.usage.promptTokenCount }],
        candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: p.usage.candidatesTokenCount }],
      }
    : { trafficType: usageTemplate.trafficType };
  return fill(template, { candidates: [candidate], usageMetadata: fill(usageTemplate, usage), modelVersion: p.model, createTime, responseId: p.responseId });
}

/** The generateContent answer. */
export function geminiAnswer(p: GeminiPlan): Obj {
  const parts: Obj[] = [];
  if (p.thought) parts.push({ text: p.thought, thought: true });
  if (p.call) parts.push({ functionCall: { name: p.call, args: FAKE_GEMINI_ARGS } });
  else parts.push({ text: p.words.join(' ') });
  return geminiResponse(p, GEMINI_ANSWER, parts, true, new Date().toISOString());
}

/**
 * The streamGenerateContent chunks: a thought chunk first (includeThoughts), then one chunk per
 * word, the last with finishReason and the final usage; a function call arrives whole in one
 * (final) chunk. Every chunk repeats the answer's modelVersion, createTime and responseId.
 */
export function* geminiChunks(p: GeminiPlan): Generator<Obj> {
  const createTime = new Date().toISOString();
  yield* chunkParts(p, (parts, final) => geminiResponse(p, final ? FINAL_CHUNK : RUNNING_CHUNK, parts, final, createTime));
}
