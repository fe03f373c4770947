import { checkStreamOptions, missingParam, type RequestContext } from './context.js';
import { agentAnswer, agentCall, chatTools, resultText } from './agent-scenario.js';
import { documentedChatChunk, documentedChatCompletion } from './documented.js';
import { sendJson, sendSse } from './respond.js';
import { FAKE_TOOL_ARGUMENTS, chooseToolCall, splitInto } from './tools.js';
import { buildChatUsage, chatPromptTokens, fakeReplyWords, replyWordCount, type ChatUsage } from './usage.js';
import { isRecord, makeId, nowSeconds } from './util.js';

const SYSTEM_FINGERPRINT = 'fp_fake';

interface ChatPlan {
  id: string;
  created: number;
  model: string;
  /** Text words (text reply) or argument fragments (tool-call reply). */
  pieces: string[];
  tool: { id: string; name: string; kind: 'function' | 'custom'; input: string } | null;
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: ChatUsage;
}

/** The scripted agent session (agent-scenario.ts): answer a tool result, or call the shell tool. */
function agentPlan(ctx: RequestContext, body: Record<string, unknown>, base: Pick<ChatPlan, 'id' | 'created' | 'model'>, promptTokens: number): ChatPlan | null {
  const { state } = ctx;
  const opts = { cachedTokens: state.cachedTokens, reasoningTokens: state.reasoningTokens };
  const last: unknown = Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
  if (isRecord(last) && last.role === 'tool') {
    const pieces = agentAnswer(resultText(last.content)).split(' ');
    return { ...base, pieces, tool: null, finishReason: 'stop', usage: buildChatUsage(promptTokens, pieces.length, opts) };
  }
  const call = agentCall(chatTools(body));
  if (!call) return null;
  const tool = { id: makeId('call_', state.nextId()), name: call.name, kind: call.kind, input: call.input };
  const pieces = call.kind === 'function' ? splitInto(call.input, state.chunkCount) : [call.input];
  return { ...base, pieces, tool, finishReason: 'tool_calls', usage: buildChatUsage(promptTokens, state.chunkCount, opts) };
}

function plan(ctx: RequestContext, body: Record<string, unknown>): ChatPlan {
  const { state } = ctx;
  const id = makeId('chatcmpl-', state.nextId());
  const opts = { cachedTokens: state.cachedTokens, reasoningTokens: state.reasoningTokens };
  const promptTokens = chatPromptTokens(body);
  const agent = state.agentScenario ? agentPlan(ctx, body, { id, created: nowSeconds(), model: String(body.model) }, promptTokens) : null;
  if (agent) return agent;
  const tool = chooseToolCall(body);
  if (tool) {
    return {
      id,
      created: nowSeconds(),
      model: String(body.model),
      pieces: splitInto(FAKE_TOOL_ARGUMENTS, state.chunkCount),
      tool: { id: makeId('call_', state.nextId()), name: tool.name, kind: 'function', input: FAKE_TOOL_ARGUMENTS },
      finishReason: 'tool_calls',
      usage: buildChatUsage(promptTokens, state.chunkCount, opts),
    };
  }
  const { words, truncated } = replyWordCount(body, state.chunkCount);
  return {
    id,
    created: nowSeconds(),
    model: String(body.model),
    pieces: fakeReplyWords(words),
    tool: null,
    finishReason: truncated ? 'length' : 'stop',
    usage: buildChatUsage(promptTokens, words, opts),
  };
}

export async function handleChatCompletions(ctx: RequestContext): Promise<void> {
  const body = ctx.body;
  if (!isRecord(body)) throw missingParam('model');
  if (typeof body.model !== 'string') throw missingParam('model');
  if (!Array.isArray(body.messages)) throw missingParam('messages');
  checkStreamOptions(body);
  const p = plan(ctx, body);
  if (ctx.record && !ctx.fault?.omitUsage) ctx.record.usage = p.usage;
  if (body.stream === true) {
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    await sendSse(ctx, chatFrames(p, includeUsage && !ctx.fault?.omitUsage));
    return;
  }
  const message = p.tool
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall(p.tool)],
        refusal: null,
        annotations: [],
      }
    : { role: 'assistant', content: p.pieces.join(' '), refusal: null, annotations: [] };
  // chat.response's fields; system_fingerprint (still sent by many models) comes after them.
  const completion: Record<string, unknown> = documentedChatCompletion({
    id: p.id,
    object: 'chat.completion',
    created: p.created,
    model: p.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: p.finishReason }],
    usage: p.usage,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  });
  if (ctx.fault?.omitUsage) delete completion.usage;
  await sendJson(ctx, completion);
}

/** A chat tool call: a `function` call with JSON arguments or a `custom` call with freeform input. */
function toolCall(t: NonNullable<ChatPlan['tool']>): Record<string, unknown> {
  return t.kind === 'custom' ? { id: t.id, type: 'custom', custom: { name: t.name, input: t.input } } : { id: t.id, type: 'function', function: { name: t.name, arguments: t.input } };
}

/**
 * The frames OpenAI sends: role delta, one delta per piece, a finish frame, then (only with
 * include_usage) a `choices: []` usage frame; with include_usage every other frame has `usage: null`.
 */
function* chatFrames(p: ChatPlan, includeUsage: boolean): Generator<string> {
  const frame = (choices: unknown[], usage?: ChatUsage): string =>
    JSON.stringify(
      documentedChatChunk({
        id: p.id,
        object: 'chat.completion.chunk',
      created: p.created,
      model: p.model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices,
        ...(includeUsage ? { usage: usage ?? null } : {}),
      }),
    );
  const choice = (delta: Record<string, unknown>, finish: string | null = null): unknown[] => [
    { index: 0, delta, logprobs: null, finish_reason: finish },
  ];
  if (p.tool?.kind === 'custom') {
    yield frame(choice({ role: 'assistant', content: null, tool_calls: [{ index: 0, ...toolCall(p.tool) }], refusal: null }));
  } else if (p.tool) {
    yield frame(
      choice({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: p.tool.id, type: 'function', function: { name: p.tool.name, arguments: '' } }],
        refusal: null,
      }),
    );
    for (const fragment of p.pieces) {
      yield frame(choice({ tool_calls: [{ index: 0, function: { arguments: fragment } }] }));
    }
  } else {
    yield frame(choice({ role: 'assistant', content: '', refusal: null }));
    for (const [i, word] of p.pieces.entries()) {
      yield frame(choice({ content: i === 0 ? word : ` ${word}` }));
    }
  }
  yield frame(choice({}, p.finishReason));
  if (includeUsage) yield frame([], p.usage);
  yield '[DONE]';
}
