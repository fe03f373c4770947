import { invalid } from './errors.js';

/**
 * The Messages request as the API documents it (providers-international §1.1): required
 * `model`, `max_tokens`, `messages`; the documented optional fields only — anything else is
 * refused with Anthropic's `<field>: Extra inputs are not permitted`, so a gateway that leaks
 * OpenAI fields fails here as it would upstream. Fields that need a beta are refused the same way
 * without its `anthropic-beta` flag (the real API's answer when a gateway drops the header):
 * `context_management` (context-management-2025-06-27) and `role: "system"` turns inside
 * `messages` (mid-conversation-system-2026-04-07, or per-turn-control-2026-07-01, which also allows
 * such a turn's own `output_config`; Claude Code 2.1.332 sends only the latter), and thinking
 * `display: "updates"` (thinking-display-updates-2026-08-18).
 */
const TOP_LEVEL = new Set([
  'model', 'max_tokens', 'messages', 'system', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'stream', 'metadata',
  'tools', 'tool_choice', 'thinking', 'service_tier', 'output_config', 'context_management',
]);
export const BETA_CONTEXT_MANAGEMENT = 'context-management-2025-06-27';
export const BETA_MID_CONVERSATION_SYSTEM = 'mid-conversation-system-2026-04-07';
export const BETA_PER_TURN_CONTROL = 'per-turn-control-2026-07-01';
export const BETA_THINKING_DISPLAY_UPDATES = 'thinking-display-updates-2026-08-18';

/**
 * Extended thinking with tool use (docs: "Extended thinking" → "Preserving thinking blocks"): with
 * thinking enabled, the last assistant turn, when it called tools, must start with the thinking
 * block it was answered with (signature and all), or the request is refused.
 */
function checkThinkingToolLoop(messages: unknown[]): void {
  const i = messages.findLastIndex((m) => isRecord(m) && m.role === 'assistant');
  const last = i >= 0 ? (messages[i] as Record<string, unknown>) : undefined;
  if (!last || !Array.isArray(last.content) || !last.content.some((b) => isRecord(b) && b.type === 'tool_use')) return;
  const first = last.content[0] as Record<string, unknown> | undefined;
  if (first?.type === 'thinking' || first?.type === 'redacted_thinking') return;
  throw invalid(
    `messages.${i}.content.0.type`,
    `Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the lastmost set of \`tool_use\` and \`tool_result\` blocks). To avoid this requirement, disable \`thinking\`.`,
  );
}
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const USER_BLOCKS = new Set(['text', 'image', 'document', 'tool_result']);
const ASSISTANT_BLOCKS = new Set(['text', 'tool_use', 'thinking', 'redacted_thinking']);
const SYSTEM_BLOCKS = new Set(['text']);

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function extra(obj: Record<string, unknown>, allowed: readonly string[], at: string): void {
  for (const key of Object.keys(obj)) if (!allowed.includes(key)) throw invalid(`${at}.${key}`, 'Extra inputs are not permitted');
}

function checkCacheControl(b: Record<string, unknown>, at: string): void {
  if (b.cache_control === undefined) return;
  const c = b.cache_control;
  if (!isRecord(c) || c.type !== 'ephemeral') throw invalid(`${at}.cache_control`, "Input should be {'type': 'ephemeral'}");
  if (c.ttl !== undefined && c.ttl !== '5m' && c.ttl !== '1h') throw invalid(`${at}.cache_control.ttl`, "Input should be '5m' or '1h'");
  extra(c, ['type', 'ttl'], `${at}.cache_control`);
}

/** `output_config`: `effort` and a structured-output `format`. */
function checkOutputConfig(c: unknown, at: string): void {
  if (!isRecord(c)) throw invalid(at, 'Input should be a valid dictionary');
  if (c.effort !== undefined && !EFFORTS.includes(String(c.effort))) throw invalid(`${at}.effort`, `Input should be ${EFFORTS.map((e) => `'${e}'`).join(', ')}`);
  if (c.format !== undefined && (!isRecord(c.format) || typeof c.format.type !== 'string')) throw invalid(`${at}.format`, 'Input should be a valid dictionary');
  extra(c, ['effort', 'format'], at);
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
  const allowed = role === 'user' ? USER_BLOCKS : role === 'system' ? SYSTEM_BLOCKS : ASSISTANT_BLOCKS;
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

function checkMessages(messages: unknown, betas: ReadonlySet<string>): void {
  if (!Array.isArray(messages)) throw invalid('messages', 'Field required');
  if (messages.length === 0) throw invalid('messages', 'at least one message is required');
  const perTurn = betas.has(BETA_PER_TURN_CONTROL);
  const systemTurns = perTurn || betas.has(BETA_MID_CONVERSATION_SYSTEM);
  let previousToolUses = new Set<string>();
  messages.forEach((m, i) => {
    const at = `messages.${i}`;
    if (!isRecord(m)) throw invalid(at, 'Input should be a valid dictionary');
    if (systemTurns && m.role === 'system') {
      // A system turn between the others: text only (an empty list with only output_config is allowed); it does not end a tool round trip.
      extra(m, perTurn ? ['role', 'content', 'output_config'] : ['role', 'content'], at);
      if (m.output_config !== undefined) checkOutputConfig(m.output_config, `${at}.output_config`);
      if (typeof m.content !== 'string' && !Array.isArray(m.content)) throw invalid(`${at}.content`, 'Field required');
      if (Array.isArray(m.content)) m.content.forEach((b, j) => checkBlock(b, `${at}.content.${j}`, 'system'));
      return;
    }
    extra(m, ['role', 'content'], at);
    if (m.role !== 'user' && m.role !== 'assistant') throw invalid(`${at}.role`, systemTurns ? "Input should be 'user', 'assistant' or 'system'" : "Input should be 'user' or 'assistant'");
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
      extra(t, ['type', 'name', 'description', 'input_schema', 'cache_control', 'defer_loading', 'strict', 'input_examples'], at);
    });
  }
  if (choice === undefined) return;
  if (!isRecord(choice) || !['auto', 'any', 'none', 'tool'].includes(String(choice.type))) throw invalid('tool_choice.type', "Input should be 'auto', 'any', 'tool' or 'none'");
  if (choice.type === 'tool' && typeof choice.name !== 'string') throw invalid('tool_choice.name', 'Field required');
  extra(choice, choice.type === 'none' ? ['type'] : ['type', 'name', 'disable_parallel_tool_use'], 'tool_choice');
}

/** Throws a 400 AnthropicError naming the first problem, as the real API would. */
export function validateMessagesRequest(body: unknown, countTokens = false, betas: ReadonlySet<string> = new Set()): asserts body is Record<string, unknown> {
  if (!isRecord(body)) throw invalid('', 'Request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL.has(key) || (countTokens && ['max_tokens', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'metadata', 'service_tier'].includes(key))) {
      throw invalid(key, 'Extra inputs are not permitted');
    }
    if (key === 'context_management' && !betas.has(BETA_CONTEXT_MANAGEMENT)) throw invalid(key, 'Extra inputs are not permitted');
  }
  if (body.output_config !== undefined) checkOutputConfig(body.output_config, 'output_config');
  if (body.context_management !== undefined) {
    const cm = body.context_management;
    if (!isRecord(cm) || (cm.edits !== undefined && !(Array.isArray(cm.edits) && cm.edits.every((e) => isRecord(e) && typeof e.type === 'string')))) {
      throw invalid('context_management.edits', 'Input should be a valid list');
    }
    extra(cm, ['edits'], 'context_management');
  }
  if (typeof body.model !== 'string' || !body.model) throw invalid('model', 'Field required');
  if (!countTokens) {
    if (body.max_tokens === undefined) throw invalid('max_tokens', 'Field required');
    if (!isInt(body.max_tokens) || body.max_tokens < 1) throw invalid('max_tokens', 'Input should be greater than or equal to 1');
  }
  checkMessages(body.messages, betas);
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
    if (!isRecord(t) || (t.type !== 'enabled' && t.type !== 'disabled' && t.type !== 'adaptive')) throw invalid('thinking.type', "Input should be 'enabled', 'disabled' or 'adaptive'");
    // `updates` (progress notes between tool calls only) comes with its beta; Claude Code's stream-json output asks for it.
    const displays = betas.has(BETA_THINKING_DISPLAY_UPDATES) ? ['summarized', 'omitted', 'updates'] : ['summarized', 'omitted'];
    if (t.display !== undefined && (t.type === 'disabled' || !displays.includes(String(t.display)))) {
      throw invalid(`thinking.${String(t.type)}.display`, `Input should be ${displays.map((d) => `'${d}'`).join(', ')}`);
    }
    extra(t, t.type === 'enabled' ? ['type', 'budget_tokens', 'display'] : t.type === 'adaptive' ? ['type', 'display'] : ['type'], `thinking.${String(t.type)}`);
    if (t.type === 'enabled') {
      if (!isInt(t.budget_tokens) || t.budget_tokens < 1024) throw invalid('thinking.enabled.budget_tokens', 'Input should be greater than or equal to 1024');
      if (!countTokens && t.budget_tokens >= (body.max_tokens as number)) throw invalid('', '`max_tokens` must be greater than `thinking.budget_tokens`');
      if (body.temperature !== undefined && body.temperature !== 1) throw invalid('', '`temperature` may only be set to 1 when thinking is enabled');
      checkThinkingToolLoop(body.messages as unknown[]);
    }
  }
}
