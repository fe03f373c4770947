import { events, messageReply, type ReplyPlan } from '../anthropic-fake/reply.js';
import { providerFixture } from '../provider-fixtures.js';
import { bedrockDocumentedAnswer, bedrockDocumentedError, bedrockDocumentedErrors, bedrockDocumentedEvent } from './fixtures.js';

/**
 * The fake's answers, stream events and error bodies, each one a documented Bedrock example
 * (bedrock/fixtures) with this request's ids, words and counts put in: what Claude says and
 * counts comes from the Anthropic fake's plan (anthropic-fake/reply.ts), the Bedrock envelope from
 * the fixtures.
 */
type Obj = Record<string, unknown>;

const ANSWER = bedrockDocumentedAnswer('invoke.response.text');
const USAGE_KEYS = Object.keys(ANSWER.usage as Obj);
const STOP = bedrockDocumentedEvent('invoke-stream', 'message_stop');
const METRICS = STOP['amazon-bedrock-invocationMetrics'] as Obj;

/** The plan's usage in the documented answer's fields. */
function usageOf(p: ReplyPlan): Obj {
  const usage = p.usage as unknown as Obj;
  return Object.fromEntries(USAGE_KEYS.map((k) => [k, usage[k] ?? 0]));
}

/** The InvokeModel answer: the documented message with this plan's id, model, blocks, stop reason and usage. */
export function bedrockAnswer(p: ReplyPlan): Obj {
  return { ...ANSWER, id: p.id, model: p.model, content: messageReply(p).content, stop_reason: p.stopReason, stop_sequence: null, usage: usageOf(p) };
}

/** Bedrock's own counts on the final message_stop, in the documented fields (latencies as documented). */
function metricsOf(p: ReplyPlan): Obj {
  const counts: Obj = {
    inputTokenCount: p.usage.input_tokens,
    outputTokenCount: p.usage.output_tokens,
    cacheReadInputTokenCount: p.usage.cache_read_input_tokens,
    cacheWriteInputTokenCount: p.usage.cache_creation_input_tokens,
  };
  return Object.fromEntries(Object.entries(METRICS).map(([k, v]) => [k, counts[k] ?? v]));
}

/**
 * The stream's events in Anthropic's order, as the chunks carry them: no pings (Bedrock sends
 * none), message_start with the documented message, message_stop with the invocation metrics.
 */
export function* bedrockEvents(p: ReplyPlan, chunkCount: number): Generator<Obj> {
  for (const [name, data] of events(p, chunkCount)) {
    if (name === 'ping') continue;
    if (name === 'message_start') yield { ...data, message: { ...bedrockAnswer(p), content: [], stop_reason: null, usage: { ...usageOf(p), output_tokens: 1 } } };
    else if (name === 'message_stop') yield { ...STOP, 'amazon-bedrock-invocationMetrics': metricsOf(p) };
    else yield data;
  }
}

/**
 * The exception a fault of a status answers when it names none: Bedrock's general exception for
 * that status (the statuses are the fixtures'; a 403 could also be a signature or token failure,
 * a 429 ModelNotReady, which the fault names when it means them).
 */
export const EXCEPTION_BY_STATUS: ReadonlyMap<number, string> = new Map(
  ['ValidationException', 'AccessDeniedException', 'ResourceNotFoundException', 'ModelTimeoutException', 'ModelErrorException', 'ThrottlingException', 'InternalServerException', 'ServiceUnavailableException'].map((n) => [bedrockDocumentedError(n).status, n] as const),
);

const DOCUMENTED_ERRORS = bedrockDocumentedErrors();

/** The documented message of an exception, if a fixture documents it. */
export function documentedMessage(exception: string): string | undefined {
  return DOCUMENTED_ERRORS.find((e) => e.exception === exception)?.body.message;
}

/** An error body: the exception's documented body (extra fields such as originalStatusCode kept) with this message. */
export function errorBody(exception: string, message: string): Obj {
  return { ...(DOCUMENTED_ERRORS.find((e) => e.exception === exception)?.body ?? {}), message };
}

const STREAM_FAILURE = providerFixture('bedrock', 'invoke-stream.exception');
/** The exception the documented failing stream ends with (`:exception-type`) and its payload. */
export const STREAM_EXCEPTION = { type: STREAM_FAILURE.eventNames!.at(-1)!, payload: STREAM_FAILURE.events!.at(-1) as Obj };

/** The payload of a stream exception: the documented one for its type, else the documented error of the same name (`throttlingException` → ThrottlingException). */
export function streamExceptionPayload(type: string, message?: string): Obj {
  const base = type === STREAM_EXCEPTION.type ? STREAM_EXCEPTION.payload : errorBody(type[0]!.toUpperCase() + type.slice(1), documentedMessage(type[0]!.toUpperCase() + type.slice(1)) ?? type);
  return message === undefined ? base : { ...base, message };
}
