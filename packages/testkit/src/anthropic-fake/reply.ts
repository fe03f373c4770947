import { agentAnswer, agentCall, resultText } from '../openai-fake/agent-scenario.js';
import { providerFixture } from '../provider-fixtures.js';
import { FAKE_THINKING, FAKE_TOOL_INPUT, chooseTool, promptUsage, promptWords, replyWords, type AnthropicUsage } from './usage.js';
import { isRecord } from './validate.js';

export interface ReplyPlan {
  id: string;
  model: string;
  thinking: string | null;
  /** Text words, or the tool call. */
  words: string[];
  tool: { id: string; name: string; input: Record<string, unknown> } | null;
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  usage: AnthropicUsage;
}

export const FAKE_SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';

/**
 * The scripted agent session (openai-fake/agent-scenario.ts): the answer to a tool result that came
 * back, or a call of the shell tool among `tools`; null for the ordinary reply.
 */
function agentTurn(body: Record<string, unknown>): { words: string[] } | { name: string; input: Record<string, unknown> } | null {
  const last: unknown = Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
  const blocks = isRecord(last) && last.role === 'user' && Array.isArray(last.content) ? last.content.filter(isRecord) : [];
  const result = blocks.find((b) => b.type === 'tool_result');
  if (result) return { words: agentAnswer(resultText(result.content)).split(' ') };
  const tools = (Array.isArray(body.tools) ? body.tools : []).filter(isRecord).filter((t) => t.type === undefined || t.type === 'custom');
  const call = agentCall(tools.map((t) => ({ name: String(t.name), kind: 'function' as const, schema: t.input_schema })));
  return call ? { name: call.name, input: JSON.parse(call.input) as Record<string, unknown> } : null;
}

export function plan(body: Record<string, unknown>, opts: { chunkCount: number; cacheRead: number; cacheCreation: number; id: string; toolId: string; agentScenario?: boolean }): ReplyPlan {
  const thinking = isRecord(body.thinking) && body.thinking.type === 'enabled' ? FAKE_THINKING : null;
  const thinkingTokens = thinking ? thinking.split(' ').length : 0;
  const prompt = promptUsage(promptWords(body), opts.cacheRead, opts.cacheCreation);
  const agent = opts.agentScenario ? agentTurn(body) : null;
  if (agent && 'words' in agent) {
    return { id: opts.id, model: String(body.model), thinking, words: agent.words, tool: null, stopReason: 'end_turn', usage: { ...prompt, output_tokens: agent.words.length + thinkingTokens } };
  }
  const chosen = agent ? null : chooseTool(body);
  const tool = agent ? { name: agent.name, input: agent.input } : chosen === null ? null : { name: chosen, input: FAKE_TOOL_INPUT };
  if (tool) {
    return { id: opts.id, model: String(body.model), thinking, words: [], tool: { id: opts.toolId, ...tool }, stopReason: 'tool_use', usage: { ...prompt, output_tokens: opts.chunkCount + thinkingTokens } };
  }
  const { words, truncated } = replyWords(body, opts.chunkCount);
  return { id: opts.id, model: String(body.model), thinking, words, tool: null, stopReason: truncated ? 'max_tokens' : 'end_turn', usage: { ...prompt, output_tokens: words.length + thinkingTokens } };
}

/** The non-stream Messages reply. */
export function messageReply(p: ReplyPlan): Record<string, unknown> {
  const content: Array<Record<string, unknown>> = [];
  if (p.thinking) content.push({ type: 'thinking', thinking: p.thinking, signature: FAKE_SIGNATURE });
  if (p.tool) content.push({ type: 'tool_use', id: p.tool.id, name: p.tool.name, input: p.tool.input });
  else content.push({ type: 'text', text: p.words.join(' ') });
  return { id: p.id, type: 'message', role: 'assistant', model: p.model, content, stop_reason: p.stopReason, stop_sequence: null, usage: p.usage };
}

/** `text` in `parts` consecutive fragments. */
function split(text: string, parts: number): string[] {
  const size = Math.ceil(text.length / parts);
  return Array.from({ length: parts }, (_, i) => text.slice(i * size, (i + 1) * size));
}

/**
 * The documented event sequence (providers-international §1.3): message_start, a ping, per block
 * content_block_start → deltas → content_block_stop (thinking ends with its signature_delta; a
 * tool_use's first input_json_delta is ""), message_delta with stop_reason and the cumulative
 * usage, message_stop. Yields `[event name, data]`.
 */
export function* events(p: ReplyPlan, chunkCount: number): Generator<[string, Record<string, unknown>]> {
  const start = { ...messageReply(p), content: [], stop_reason: null, usage: { ...p.usage, output_tokens: 1 } };
  yield ['message_start', { type: 'message_start', message: start }];
  let index = 0;
  if (p.thinking) {
    yield ['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }];
    for (const [i, w] of p.thinking.split(' ').entries()) {
      yield ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: i === 0 ? w : ` ${w}` } }];
    }
    yield ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: FAKE_SIGNATURE } }];
    yield ['content_block_stop', { type: 'content_block_stop', index }];
    index += 1;
  }
  if (p.tool) {
    yield ['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: p.tool.id, name: p.tool.name, input: {} } }];
    yield ['ping', { type: 'ping' }];
    for (const fragment of ['', ...split(JSON.stringify(p.tool.input), chunkCount)]) {
      yield ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } }];
    }
  } else {
    yield ['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }];
    yield ['ping', { type: 'ping' }];
    for (const [i, w] of p.words.entries()) {
      yield ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: i === 0 ? w : ` ${w}` } }];
    }
  }
  yield ['content_block_stop', { type: 'content_block_stop', index }];
  yield ['message_delta', { type: 'message_delta', delta: { stop_reason: p.stopReason, stop_sequence: null }, usage: { output_tokens: p.usage.output_tokens } }];
  yield ['message_stop', { type: 'message_stop' }];
}

type Obj = Record<string, unknown>;

/**
 * Anthropic's documented answer and stream (server/src/relay/adapters/anthropic/fixtures) are the
 * templates of what the Anthropic fake serves: `messageReply` and `events` above say what Claude
 * answers (Bedrock and Vertex wrap those in their own documented envelopes); `anthropicMessage`
 * and `anthropicEvents` give them the fields the Messages API documents, in its order, with the
 * values the API sends when there is nothing to say (`stop_details: null`, …). Content blocks keep
 * the fake's own fields: the SDK type declares a text block's `citations` and a tool_use's `caller`,
 * but the API leaves them out of a plain text and a direct call, and clients such as
 * @ai-sdk/anthropic refuse `citations: null`.
 */
const MESSAGE = providerFixture('anthropic', 'messages.response').body as Obj;
const STREAM = providerFixture('anthropic', 'messages.stream').events as Obj[];
const STREAM_ERROR = providerFixture('anthropic', 'messages.stream.error').events!.at(-1) as Obj;

/** The template's fields in its order: this value's where it has one, else the template's own. */
function fill(template: Obj, values: Obj): Obj {
  return { ...Object.fromEntries(Object.keys(template).map((k) => [k, k in values ? values[k] : template[k]])), ...values };
}

/** The documented event of this type (and block or delta type). */
function documentedEvent(data: Obj): Obj {
  const kind = (e: Obj) => [e.type, (e.content_block as Obj | undefined)?.type, (e.delta as Obj | undefined)?.type].join('/');
  return STREAM.find((e) => kind(e) === kind(data)) ?? STREAM.find((e) => e.type === data.type) ?? data;
}

/** The plan's usage in the documented usage fields (cache writes all 5-minute ones; thinking tokens when it thought). */
function usageOf(p: ReplyPlan, template: Obj, outputTokens: number, final: boolean): Obj {
  const thinkingTokens = p.thinking ? p.thinking.split(' ').length : 0;
  const values: Obj = {
    input_tokens: p.usage.input_tokens,
    cache_creation_input_tokens: p.usage.cache_creation_input_tokens,
    cache_read_input_tokens: p.usage.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: p.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: final && thinkingTokens ? { thinking_tokens: thinkingTokens } : null,
    server_tool_use: null,
  };
  return Object.fromEntries(Object.keys(template).map((k) => [k, k in values ? values[k] : template[k]]));
}

/** The Messages API answer, in the documented fields. */
export function anthropicMessage(p: ReplyPlan): Obj {
  return fill(MESSAGE, { ...messageReply(p), stop_details: null, container: null, diagnostics: null, usage: usageOf(p, MESSAGE.usage as Obj, p.usage.output_tokens, true) });
}

/** The stream's events (`events` above), each in the fields of the documented event of its kind. */
export function* anthropicEvents(p: ReplyPlan, chunkCount: number): Generator<[string, Obj]> {
  for (const [name, data] of events(p, chunkCount)) {
    const template = documentedEvent(data);
    if (name === 'message_start') {
      const message = template.message as Obj;
      yield [name, { ...data, message: fill(message, { ...(data.message as Obj), stop_details: null, container: null, diagnostics: null, usage: usageOf(p, message.usage as Obj, 1, false) }) }];
    } else if (name === 'message_delta') {
      // The final usage is cumulative: the input and cache counts of message_start come again.
      yield [name, { ...data, delta: fill(template.delta as Obj, data.delta as Obj), usage: usageOf(p, template.usage as Obj, p.usage.output_tokens, true) }];
    } else yield [name, data];
  }
}

/** The `error` event that ends a failing stream (documented without a request_id). */
export function anthropicStreamError(type: string, message: string): Obj {
  return { ...STREAM_ERROR, error: { ...(STREAM_ERROR.error as Obj), type, message } };
}
