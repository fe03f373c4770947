import { providerFixture } from '../provider-fixtures.js';
import type { OpenAIErrorBody } from './context.js';

/**
 * OpenAI's documented bodies (server/src/relay/adapters/openai/fixtures) are the templates of what
 * the fake serves: a chat completion, a chat chunk, a Responses answer and its events, the model
 * list and error objects take the documented fields in the documented order; the fake's handlers
 * fill in the values (ids, words, usage, the request's echo) as before.
 */
type Obj = Record<string, unknown>;

const body = (name: string): Obj => providerFixture('openai', name).body as Obj;
const CHAT = body('chat.response');
const CHAT_CHOICE = (CHAT.choices as Obj[])[0]!;
const CHUNK = (providerFixture('openai', 'chat.stream-usage').events as Obj[])[0]!;
const CHUNK_CHOICE = (CHUNK.choices as Obj[])[0]!;
const RESPONSE = body('responses.response');
const RESPONSE_EVENTS = providerFixture('openai', 'responses.stream').events as Obj[];
const MODELS = body('models.response');
const MODEL = (MODELS.data as Obj[])[0]!;
const ERROR = (body('error.invalid-request').error as Obj)!;

/**
 * The template's fields in its order, each with the fake's value; fields the fake has no value for
 * are left out (a chunk's `usage` without include_usage), fields the template lacks come after (the
 * fake's extras, such as a tool call's `tool_calls`).
 */
export function inTemplateOrder(template: Obj, values: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(template)) if (values[k] !== undefined) out[k] = values[k];
  for (const [k, v] of Object.entries(values)) if (!(k in out) && v !== undefined) out[k] = v;
  return out;
}

/** The template's fields, each with the fake's value or else the template's own (a constant or null); extras after. */
function withDefaults(template: Obj, values: Obj): Obj {
  return inTemplateOrder(template, { ...Object.fromEntries(Object.keys(template).map((k) => [k, values[k] === undefined ? template[k] : values[k]])), ...values });
}

/** A chat completion in chat.response's fields (its one choice and message too). */
export function documentedChatCompletion(values: Obj): Obj {
  const choices = (values.choices as Obj[]).map((c) => inTemplateOrder(CHAT_CHOICE, { ...c, message: inTemplateOrder(CHAT_CHOICE.message as Obj, c.message as Obj) }));
  return inTemplateOrder(CHAT, { ...values, choices });
}

/** A chat chunk in chat.stream-usage's fields. */
export function documentedChatChunk(values: Obj): Obj {
  return inTemplateOrder(CHUNK, { ...values, choices: (values.choices as Obj[]).map((c) => inTemplateOrder(CHUNK_CHOICE, c)) });
}

/**
 * A Responses answer in responses.response's fields: the request echoes a template has and the
 * fake did not fill (previous_response_id, truncation, reasoning, …) take the documented default.
 */
export function documentedResponse(values: Obj): Obj {
  return withDefaults(RESPONSE, values);
}

/** A Responses stream event in the fields of the documented event of its type (`type` and `sequence_number` first). */
export function documentedResponseEvent(values: Obj): Obj {
  const template = RESPONSE_EVENTS.find((e) => e.type === values.type);
  return template ? inTemplateOrder(template, values) : values;
}

/** A model object in models.response's fields. */
export function documentedModel(values: Obj): Obj {
  return inTemplateOrder(MODEL, values);
}

/** GET /v1/models: the documented list envelope around these models. */
export function documentedModelList(data: Obj[]): Obj {
  return inTemplateOrder(MODELS, { object: 'list', data: data.map(documentedModel) });
}

/** An error object in the documented fields (message, type, param, code). */
export function documentedError(error: OpenAIErrorBody): Obj {
  return inTemplateOrder(ERROR, error as unknown as Obj);
}

/** The documented `type` and `code` of an error status (404 model_not_found, 429 rate_limit_exceeded). */
export function documentedErrorKind(status: number): { type: string; code: string | null } | undefined {
  for (const name of ['error.invalid-request', 'error.rate-limit']) {
    const f = providerFixture('openai', name);
    if (f.status === status) {
      const e = (f.body as { error: OpenAIErrorBody }).error;
      return { type: e.type, code: e.code };
    }
  }
  return undefined;
}
