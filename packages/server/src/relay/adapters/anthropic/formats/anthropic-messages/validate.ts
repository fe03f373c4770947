import type { Lang } from '@modelgate/shared';
import { localError, type RelayError } from '../../../../relay-error.js';

/**
 * Checks of an inbound Messages body (docs.anthropic.com/en/api/messages): the fields ModelGate
 * reads or converts. Unknown fields pass (they are forwarded untouched to Anthropic upstreams), and
 * so do `role: "system"` messages inside `messages` (text; Claude Code sends them with its beta flag).
 * Each failure names its field, Anthropic-style (`max_tokens: Field required`).
 */
export function invalidField(lang: Lang, field: string, problem: string): RelayError {
  return localError(lang, 400, 'RELAY_INVALID_REQUEST', { type: 'invalid_request_error', errorCode: 'invalid_request_error', detail: `${field}: ${problem}`, param: field });
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function checkBlocks(lang: Lang, field: string, content: unknown): void {
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) throw invalidField(lang, field, 'Input should be a valid string or list of content blocks');
  content.forEach((b, i) => {
    if (!isObj(b) || typeof b.type !== 'string') throw invalidField(lang, `${field}.${i}.type`, 'Field required');
    if (b.type === 'text' && typeof b.text !== 'string') throw invalidField(lang, `${field}.${i}.text`, 'Field required');
    if (b.type === 'image' && !isObj(b.source)) throw invalidField(lang, `${field}.${i}.source`, 'Field required');
    if (b.type === 'tool_use' && (typeof b.id !== 'string' || typeof b.name !== 'string')) throw invalidField(lang, `${field}.${i}.id`, 'Field required');
    if (b.type === 'tool_result' && typeof b.tool_use_id !== 'string') throw invalidField(lang, `${field}.${i}.tool_use_id`, 'Field required');
  });
}

/** A system message's content: a string or text blocks (per-message `output_config` may ride beside it). */
function checkSystemText(lang: Lang, field: string, content: unknown): void {
  checkBlocks(lang, field, content);
  if (Array.isArray(content)) {
    content.forEach((b, i) => {
      if (isObj(b) && b.type !== 'text') throw invalidField(lang, `${field}.${i}.type`, "Input should be 'text' in a system message");
    });
  }
}

const integer = (v: unknown) => typeof v === 'number' && Number.isInteger(v);

/** Validates a Messages (or count_tokens, without max_tokens) body; throws a 400 naming the field. */
export function validateMessagesBody(lang: Lang, body: Record<string, unknown>, opts: { countTokens?: boolean } = {}): void {
  if (typeof body.model !== 'string' || !body.model) throw invalidField(lang, 'model', 'Field required');
  if (!opts.countTokens) {
    if (body.max_tokens === undefined || body.max_tokens === null) throw invalidField(lang, 'max_tokens', 'Field required');
    if (!integer(body.max_tokens) || (body.max_tokens as number) < 1) throw invalidField(lang, 'max_tokens', 'Input should be an integer greater than or equal to 1');
  }
  if (!Array.isArray(body.messages)) throw invalidField(lang, 'messages', 'Field required');
  if (body.messages.length === 0) throw invalidField(lang, 'messages', 'at least one message is required');
  body.messages.forEach((m, i) => {
    if (!isObj(m)) throw invalidField(lang, `messages.${i}`, 'Input should be an object');
    if (m.role === 'system') {
      // A system message inside the conversation (Claude Code sends one): text only, anywhere in the list.
      checkSystemText(lang, `messages.${i}.content`, m.content);
      return;
    }
    if (m.role !== 'user' && m.role !== 'assistant') throw invalidField(lang, `messages.${i}.role`, "Input should be 'user', 'assistant' or 'system'");
    checkBlocks(lang, `messages.${i}.content`, m.content);
  });
  if (!body.messages.some((m) => isObj(m) && m.role !== 'system')) throw invalidField(lang, 'messages', 'at least one user or assistant message is required');
  if (body.system !== undefined && typeof body.system !== 'string') checkBlocks(lang, 'system', body.system);
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw invalidField(lang, 'stream', 'Input should be a valid boolean');
  if (body.temperature !== undefined && (typeof body.temperature !== 'number' || body.temperature < 0 || body.temperature > 1)) {
    throw invalidField(lang, 'temperature', 'Input should be a number from 0 to 1');
  }
  if (body.top_p !== undefined && typeof body.top_p !== 'number') throw invalidField(lang, 'top_p', 'Input should be a valid number');
  if (body.top_k !== undefined && !integer(body.top_k)) throw invalidField(lang, 'top_k', 'Input should be a valid integer');
  if (body.stop_sequences !== undefined && !(Array.isArray(body.stop_sequences) && body.stop_sequences.every((s) => typeof s === 'string'))) {
    throw invalidField(lang, 'stop_sequences', 'Input should be a list of strings');
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw invalidField(lang, 'tools', 'Input should be a valid list');
    body.tools.forEach((t, i) => {
      if (!isObj(t) || typeof t.name !== 'string') throw invalidField(lang, `tools.${i}.name`, 'Field required');
    });
  }
  if (body.tool_choice !== undefined && body.tool_choice !== null && !(isObj(body.tool_choice) && typeof body.tool_choice.type === 'string')) {
    throw invalidField(lang, 'tool_choice', 'Input should be an object with a type');
  }
}
