import { invalid } from './errors.js';

/**
 * The Messages request as the API documents it (providers-international §1.1): required
 * `model`, `max_tokens`, `messages`; the documented optional fields only — anything else is
 * refused with Anthropic's `<field>: Extra inputs are not permitted`, so a gateway that leaks
 * OpenAI fields fails here as it would upstream.
 */
const TOP_LEVEL = new Set([
  'model', 'max_tokens', 'messages', 'system', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'stream', 'metadata',
  'tools', 'tool_choice', 'thinking', 'service_tier',
]);
const MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const USER_BLOCKS = new Set(['text', 'image', 'document', 'tool_result']);
const ASSISTANT_BLOCKS = new Set(['text', 'tool_use', 'thinking', 'redacted_thinking']);

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function extra(obj: Record<string, unknown>, allowed: readonly string[], at: string): void {
  for (const key of Object.keys(obj)) if (!allowed.includes(key)) throw invalid(`${at}.${key}`, 'Extra inputs are not permitted');
}

function checkCacheControl(b: Record<string, unknown>, at: string): void {
  if (b.cache_control === undefined) return;
  const c = b.cache_control;
  if (!isRecord(c) || c.type !== 'ephemeral') throw invalid(`${at}.cache_control`, "Input should be {'type': 'ephemeral'}");
}

function checkSource(s: unknown, at: string, pdf: boolean): void {
  if (!isRecord(s)) throw invalid(`${at}.source`, 'Field required');
  if (s.type === 'url') {
    if (typeof s.url !== 'string' || !/^https?:\/\//.test(s.url)) throw invalid(`${at}.source.url`, 'Input should be a valid URL');
    return;
  }
  if (s.type !== 'base64') throw invalid(`${at}.source.type`, "Input should be 'base64' or 'url'");
  const ok = pdf ? s.media_type === 'application/pdf' : MEDIA_TYPES.has(String(s.media_type));
  if (!ok) throw invalid(`${at}.source.media_type`, pdf ? "Input should be 'application/pdf'" : "Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'");
  if (typeof s.data !== 'string' || !s.data) throw invalid(`${at}.source.data`, 'Field required');
}

function checkBlock(b: unknown, at: string, role: string): void {
  if (!isRecord(b)) throw invalid(at, 'Input should be a valid dictionary');
  const allowed = role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS;
  if (typeof b.type !== 'string' || !allowed.has(b.type)) throw invalid(`${at}.type`, `Input tag '${String(b.type)}' is not allowed in a ${role} message`);
  checkCacheControl(b, at);
  switch (b.type) {
    case 'text':
      if (typeof b.text !== 'string' || !b.text) throw invalid(`${at}.text`, 'text content blocks must be non-empty');
      extra(b, ['type', 'text', 'cache_control', 'citations'], at);
      return;
    case 'image':
    case 'document':
      checkSource(b.source, at, b.type === 'document');
      return;
    case 'tool_use':
      if (typeof b.id !== 'string' || typeof b.name !== 'string') throw invalid(`${at}.id`, 'Field required');
      if (!isRecord(b.input)) throw invalid(`${at}.input`, 'Input should be a valid dictionary');
      extra(b, ['type', 'id', 'name', 'input', 'cache_control'], at);
      return;
    case 'tool_result':
      if (typeof b.tool_use_id !== 'string') throw invalid(`${at}.tool_use_id`, 'Field required');
      if (b.content !== undefined && typeof b.content !== 'string' && !Array.isArray(b.content)) throw invalid(`${at}.content`, 'Input should be a valid string or list');
      extra(b, ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'], at);
      return;
    case 'thinking':
      if (typeof b.thinking !== 'string' || typeof b.signature !== 'string') throw invalid(`${at}.signature`, 'Field required');
      return;
  }
}

function checkMessages(messages: unknown): void {
  if (!Array.isArray(messages)) throw invalid('messages', 'Field required');
  if (messages.length === 0) throw invalid('messages', 'at least one message is required');
  let previousToolUses = new Set<string>();
  messages.forEach((m, i) => {
    const at = `messages.${i}`;
    if (!isRecord(m)) throw invalid(at, 'Input should be a valid dictionary');
    extra(m, ['role', 'content'], at);
    if (m.role !== 'user' && m.role !== 'assistant') throw invalid(`${at}.role`, "Input should be 'user' or 'assistant'");
    const blocks = typeof m.content === 'string' ? [] : m.content;
    if (typeof m.content !== 'string' && !Array.isArray(blocks)) throw invalid(`${at}.content`, 'Field required');
    if (Array.isArray(blocks)) blocks.forEach((b, j) => checkBlock(b, `${at}.content.${j}`, m.role as string));
    const list = Array.isArray(blocks) ? (blocks as Array<Record<string, unknown>>) : [];
    if (m.role === 'user') {
      for (const b of list) {
        if (b.type === 'tool_result' && !previousToolUses.has(String(b.tool_use_id))) {
          throw invalid(`${at}.content`, `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
        }
      }
    }
    previousToolUses = new Set(list.filter((b) => b.type === 'tool_use').map((b) => String(b.id)));
  });
}

function checkTools(tools: unknown, choice: unknown): void {
  if (tools !== undefined) {
    if (!Array.isArray(tools)) throw invalid('tools', 'Input should be a valid list');
    tools.forEach((t, i) => {
      const at = `tools.${i}`;
      if (!isRecord(t) || typeof t.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) throw invalid(`${at}.name`, 'String should match pattern');
      if (t.type !== undefined && t.type !== 'custom') return; // server tools (web_search_20250305, …)
      if (!isRecord(t.input_schema) || t.input_schema.type !== 'object') throw invalid(`${at}.input_schema.type`, "Input should be 'object'");
      extra(t, ['type', 'name', 'description', 'input_schema', 'cache_control'], at);
    });
  }
  if (choice === undefined) return;
  if (!isRecord(choice) || !['auto', 'any', 'none', 'tool'].includes(String(choice.type))) throw invalid('tool_choice.type', "Input should be 'auto', 'any', 'tool' or 'none'");
  if (choice.type === 'tool' && typeof choice.name !== 'string') throw invalid('tool_choice.name', 'Field required');
  extra(choice, choice.type === 'none' ? ['type'] : ['type', 'name', 'disable_parallel_tool_use'], 'tool_choice');
}

/** Throws a 400 AnthropicError naming the first problem, as the real API would. */
export function validateMessagesRequest(body: unknown, countTokens = false): asserts body is Record<string, unknown> {
  if (!isRecord(body)) throw invalid('', 'Request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL.has(key) || (countTokens && ['max_tokens', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'metadata', 'service_tier'].includes(key))) {
      throw invalid(key, 'Extra inputs are not permitted');
    }
  }
  if (typeof body.model !== 'string' || !body.model) throw invalid('model', 'Field required');
  if (!countTokens) {
    if (body.max_tokens === undefined) throw invalid('max_tokens', 'Field required');
    if (!isInt(body.max_tokens) || body.max_tokens < 1) throw invalid('max_tokens', 'Input should be greater than or equal to 1');
  }
  checkMessages(body.messages);
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system)) throw invalid('system', 'Input should be a valid string or list');
    body.system.forEach((b, i) => {
      if (!isRecord(b) || b.type !== 'text' || typeof b.text !== 'string') throw invalid(`system.${i}`, "Input should be a 'text' block");
      checkCacheControl(b, `system.${i}`);
    });
  }
  if (body.temperature !== undefined && (typeof body.temperature !== 'number' || body.temperature < 0 || body.temperature > 1)) {
    throw invalid('temperature', 'Input should be less than or equal to 1');
  }
  if (body.top_p !== undefined && (typeof body.top_p !== 'number' || body.top_p < 0 || body.top_p > 1)) throw invalid('top_p', 'Input should be a number from 0 to 1');
  if (body.top_k !== undefined && (!isInt(body.top_k) || body.top_k < 0)) throw invalid('top_k', 'Input should be a valid integer');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw invalid('stream', 'Input should be a valid boolean');
  if (body.stop_sequences !== undefined && !(Array.isArray(body.stop_sequences) && body.stop_sequences.every((s) => typeof s === 'string'))) {
    throw invalid('stop_sequences', 'Input should be a valid list of strings');
  }
  if (body.metadata !== undefined) {
    if (!isRecord(body.metadata)) throw invalid('metadata', 'Input should be a valid dictionary');
    extra(body.metadata, ['user_id'], 'metadata');
  }
  checkTools(body.tools, body.tool_choice);
  if (body.thinking !== undefined) {
    const t = body.thinking;
    if (!isRecord(t) || (t.type !== 'enabled' && t.type !== 'disabled')) throw invalid('thinking.type', "Input should be 'enabled' or 'disabled'");
    if (t.type === 'enabled') {
      if (!isInt(t.budget_tokens) || t.budget_tokens < 1024) throw invalid('thinking.enabled.budget_tokens', 'Input should be greater than or equal to 1024');
      if (!countTokens && t.budget_tokens >= (body.max_tokens as number)) throw invalid('', '`max_tokens` must be greater than `thinking.budget_tokens`');
      if (body.temperature !== undefined && body.temperature !== 1) throw invalid('', '`temperature` may only be set to 1 when thinking is enabled');
    }
  }
}
