import { agentAnswer, agentCall, resultText } from '../openai-fake/agent-scenario.js';
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
