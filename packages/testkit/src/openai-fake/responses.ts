import { invalidRequest, missingParam, type RequestContext } from './context.js';
import { agentAnswer, agentCall, resultText, responsesTools, type AgentCall } from './agent-scenario.js';
import { documentedResponse, documentedResponseEvent } from './documented.js';
import { sendJson, sendSse } from './respond.js';
import { FAKE_TOOL_ARGUMENTS, splitInto } from './tools.js';
import { countFakeTokens, fakeReplyWords } from './usage.js';
import { isRecord, makeId, nowSeconds } from './util.js';

/**
 * `POST /v1/responses` (OpenAI's Responses API; providers-international §9), with the chat fake's
 * token rules: input_tokens = words of `instructions` and every input text (function outputs and
 * call arguments included), output_tokens = reply words (a function call counts chunkCount).
 */
function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  return input
    .map((item: unknown) => {
      if (typeof item === 'string') return item;
      if (!isRecord(item)) return '';
      if (item.type === 'function_call') return String(item.arguments ?? '');
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') return resultText(item.output);
      if (item.type === 'custom_tool_call') return String(item.input ?? '');
      if (typeof item.content === 'string') return item.content;
      return Array.isArray(item.content) ? item.content.map((p: unknown) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join(' ') : '';
    })
    .join(' ');
}

/** The function the fake calls: a forced tool_choice, else a last user turn about the weather with no output after it. */
function chooseFunction(body: Record<string, unknown>): string | null {
  const names = (Array.isArray(body.tools) ? body.tools : []).filter((t): t is Record<string, unknown> => isRecord(t) && t.type === 'function').map((t) => String(t.name));
  if (!names.length) return null;
  const choice = body.tool_choice;
  if (isRecord(choice) && choice.type === 'function' && typeof choice.name === 'string') return choice.name;
  if (choice === 'none') return null;
  if (choice === 'required') return names[0]!;
  const items = Array.isArray(body.input) ? body.input : [body.input];
  const last: unknown = items.at(-1);
  if (isRecord(last) && last.type === 'function_call_output') return null;
  if (!/\bweather\b/iu.test(inputText([last]))) return null;
  return names.find((n) => n.toLowerCase().includes('weather')) ?? names[0]!;
}

function validate(body: unknown): asserts body is Record<string, unknown> {
  if (!isRecord(body) || typeof body.model !== 'string') throw missingParam('model');
  if (body.input === undefined) throw missingParam('input');
  if (body.messages !== undefined) throw invalidRequest("Unknown parameter: 'messages'.", 'messages', 'unknown_parameter');
  for (const [i, t] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    // Responses tools are flat: a chat-style `{type, function:{…}}` is refused, as OpenAI does.
    if (isRecord(t) && t.type === 'function' && typeof t.name !== 'string') throw missingParam(`tools[${i}].name`);
  }
}

/** The scripted agent session (agent-scenario.ts): a shell call, the answer to its result, or null for the ordinary reply. */
function agentPlan(body: Record<string, unknown>): { call: AgentCall } | { words: string[] } | null {
  const items = Array.isArray(body.input) ? body.input : [];
  const last: unknown = items.at(-1);
  if (isRecord(last) && (last.type === 'function_call_output' || last.type === 'custom_tool_call_output')) return { words: agentAnswer(resultText(last.output)).split(' ') };
  const call = agentCall(responsesTools(body));
  return call ? { call } : null;
}

/** The request's tools as a Response echoes them: a function tool always carries `strict` (default true) and `parameters`. */
function echoTools(tools: unknown): unknown[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((t: unknown) => {
    const tool = t && typeof t === 'object' ? (t as Record<string, unknown>) : {};
    return tool.type === 'function' ? { ...tool, strict: tool.strict ?? true, parameters: tool.parameters ?? null } : tool;
  });
}

export async function handleResponses(ctx: RequestContext): Promise<void> {
  const body = ctx.body;
  validate(body);
  const { state } = ctx;
  const id = makeId('resp_', state.nextId());
  const agent = state.agentScenario ? agentPlan(body) : null;
  const agentFn = agent && 'call' in agent ? agent.call : null;
  const fn = agent ? null : chooseFunction(body);
  const calling = fn !== null || agentFn !== null;
  const max = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : Infinity;
  const words = calling ? [] : agent && 'words' in agent ? agent.words.slice(0, max) : fakeReplyWords(Math.min(state.chunkCount, max));
  const truncated = !calling && words.length < (agent && 'words' in agent ? agent.words.length : state.chunkCount);
  const input = countFakeTokens(`${typeof body.instructions === 'string' ? body.instructions : ''} ${inputText(body.input)}`);
  const output = calling ? state.chunkCount : words.length;
  const usage = { input_tokens: input, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output };
  if (ctx.record) ctx.record.usage = usage;
  const text = words.join(' ');
  const msgId = makeId('msg_', state.nextId());
  const call = fn
    ? { type: 'function_call', id: makeId('fc_', state.nextId()), call_id: makeId('call_', state.nextId()), name: fn, arguments: FAKE_TOOL_ARGUMENTS, status: 'completed' }
    : agentFn?.kind === 'function'
      ? { type: 'function_call', id: makeId('fc_', state.nextId()), call_id: makeId('call_', state.nextId()), ...(agentFn.namespace ? { namespace: agentFn.namespace } : {}), name: agentFn.name, arguments: agentFn.input, status: 'completed' }
      : null;
  const custom = agentFn?.kind === 'custom' ? { type: 'custom_tool_call', id: makeId('ctc_', state.nextId()), call_id: makeId('call_', state.nextId()), ...(agentFn.namespace ? { namespace: agentFn.namespace } : {}), name: agentFn.name, input: agentFn.input, status: 'completed' } : null;
  const message = { type: 'message', id: msgId, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
  // The echo of the request a Response carries (instructions, metadata, sampling, tools with `strict`, …), in responses.response's fields.
  const reasoning = isRecord(body.reasoning) ? body.reasoning : {};
  const base = {
    id, object: 'response', created_at: nowSeconds(), error: null, model: body.model,
    instructions: body.instructions ?? null, max_output_tokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null, metadata: body.metadata ?? {},
    temperature: typeof body.temperature === 'number' ? body.temperature : 1, top_p: typeof body.top_p === 'number' ? body.top_p : 1,
    tools: echoTools(body.tools), parallel_tool_calls: body.parallel_tool_calls ?? true, tool_choice: body.tool_choice ?? 'auto',
    text: { format: { type: 'text' }, verbosity: 'medium', ...(isRecord(body.text) ? body.text : {}) },
    previous_response_id: body.previous_response_id ?? null, reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    service_tier: 'default', truncation: body.truncation ?? 'disabled',
  };
  const done = truncated ? { status: 'incomplete', completed_at: null } : { status: 'completed', completed_at: nowSeconds() };
  const final = documentedResponse({ ...base, ...done, incomplete_details: truncated ? { reason: 'max_output_tokens' } : null, output: [call ?? custom ?? message], usage });
  if (body.stream !== true) return sendJson(ctx, final);
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => JSON.stringify(documentedResponseEvent({ type, sequence_number: seq++, ...data }));
  function* frames(): Generator<string> {
    const progress = documentedResponse({ ...base, status: 'in_progress', completed_at: null, incomplete_details: null, output: [], usage: null });
    yield ev('response.created', { response: progress });
    yield ev('response.in_progress', { response: progress });
    if (call) {
      yield ev('response.output_item.added', { output_index: 0, item: { ...call, arguments: '', status: 'in_progress' } });
      for (const delta of splitInto(call.arguments, state.chunkCount)) yield ev('response.function_call_arguments.delta', { item_id: call.id, output_index: 0, delta });
      yield ev('response.function_call_arguments.done', { item_id: call.id, output_index: 0, name: call.name, arguments: call.arguments });
      yield ev('response.output_item.done', { output_index: 0, item: call });
    } else if (custom) {
      yield ev('response.output_item.added', { output_index: 0, item: { ...custom, input: '', status: 'in_progress' } });
      for (const delta of splitInto(custom.input, state.chunkCount)) yield ev('response.custom_tool_call_input.delta', { item_id: custom.id, output_index: 0, delta });
      yield ev('response.custom_tool_call_input.done', { item_id: custom.id, output_index: 0, input: custom.input });
      yield ev('response.output_item.done', { output_index: 0, item: custom });
    } else {
      const at = { item_id: msgId, output_index: 0, content_index: 0 };
      yield ev('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } });
      yield ev('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
      for (const [i, w] of words.entries()) yield ev('response.output_text.delta', { ...at, delta: i === 0 ? w : ` ${w}`, logprobs: [] });
      yield ev('response.output_text.done', { ...at, text, logprobs: [] });
      yield ev('response.content_part.done', { ...at, part: message.content[0] });
      yield ev('response.output_item.done', { output_index: 0, item: message });
    }
    yield ev(truncated ? 'response.incomplete' : 'response.completed', { response: final });
  }
  await sendSse(ctx, frames(), { named: true });
}
