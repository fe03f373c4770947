import type { Usage } from '@modelgate/shared';
import { readUsage } from '../../billing/pricing.js';
import { isObj } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';
import { callItem, toolTable } from './tools.js';

/** Normalised usage → the Responses `usage` object. */
export function responsesUsage(u: Usage | undefined): Record<string, unknown> {
  const input = u?.promptTokens ?? 0;
  const output = u?.completionTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u?.cachedTokens ?? 0, cache_write_tokens: u?.cacheWriteTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u?.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}

/** `finish_reason` → the response's status and `incomplete_details` (§0: length → incomplete/max_output_tokens). */
export function statusOf(finish: unknown): { status: string; incomplete_details: Record<string, unknown> | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** Ids of the items of one response, derived from its request id. */
export function itemId(prefix: string, cx: ConvertContext, n: number): string {
  return `${prefix}_${cx.requestId.replace(/[^A-Za-z0-9]/g, '')}${n}`;
}

/** The envelope of a Response object (output and usage filled in by the caller). */
export function responseObject(cx: ConvertContext, id: string, model: string, createdAt: number): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: model || cx.model,
    output: [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: null,
    user: null,
    metadata: {},
  };
}

/** A chat completion → a Response: reasoning, the message, then each tool call as its own item (custom tools as `custom_tool_call`). */
export function openAIToResponsesResponse(json: Record<string, unknown>, cx: ConvertContext): Record<string, unknown> {
  const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : {};
  const m = isObj(choice.message) ? choice.message : {};
  const output: Array<Record<string, unknown>> = [];
  if (typeof m.reasoning_content === 'string' && m.reasoning_content) {
    output.push({ type: 'reasoning', id: itemId('rs', cx, 0), summary: [{ type: 'summary_text', text: m.reasoning_content }] });
  }
  if (typeof m.content === 'string' && m.content) {
    output.push({ type: 'message', id: itemId('msg', cx, 0), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: m.content, annotations: [], logprobs: [] }] });
  }
  const table = toolTable(cx.callerBody ?? {});
  (Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObj) : []).forEach((c, k) => {
    const fn = isObj(c.function) ? c.function : {};
    const custom = table.byChatName.get(String(fn.name ?? ''))?.kind === 'custom';
    output.push(callItem(table, itemId(custom ? 'ctc' : 'fc', cx, k), c.id, fn.name, String(fn.arguments ?? '')));
  });
  const created = typeof json.created === 'number' ? json.created : Math.floor(Date.now() / 1000);
  const id = typeof json.id === 'string' ? `resp_${json.id.replace(/[^A-Za-z0-9]/g, '')}` : itemId('resp', cx, 0);
  return { ...responseObject(cx, id, typeof json.model === 'string' ? json.model : cx.model, created), ...statusOf(choice.finish_reason), output, usage: responsesUsage(readUsage(json.usage)) };
}
