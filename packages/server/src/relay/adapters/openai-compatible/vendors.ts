import { readUsage } from '../../billing/pricing.js';
import { openAIReader } from '../../formats/openai-chat/stream.js';
import { isObj, parseObject } from '../../formats/shared/wire.js';
import type { ConvertContext, EventFacts, UpstreamEvent, WireError } from '../../formats/types.js';
import { credentialsDead } from '../../upstream.js';
import type { ConvertedReply, StreamTransformer, UpstreamCall, UpstreamError } from '../types.js';
import { CompatibleAdapter } from '../stream-usage.js';

/**
 * The OpenAI-wire vendors whose replies differ from OpenAI's in ways that matter for billing or for
 * the caller (providers-china-and-tasks §6): each is the shared base plus the one difference.
 */

/** A stream transformer whose upstream events are rewritten (or dropped) before they are read. */
function rewriting(t: StreamTransformer, rewrite: () => (ev: UpstreamEvent) => UpstreamEvent | undefined): StreamTransformer {
  const map = rewrite();
  async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
    for await (const ev of t.events(body)) {
      const out = map(ev);
      if (out) yield out;
    }
  }
  return { ...t, events };
}

// ---------------------------------------------------------------------------------------------
// MiniMax (35): errors arrive as HTTP 200 with `base_resp.status_code ≠ 0` (the reference passes
// them as successes). Codes from MiniMax's error-code table.

/** MiniMax's `base_resp` when it reports a failure. */
function minimaxFailure(json: Record<string, unknown>): { code: number; msg: string } | undefined {
  const b = json.base_resp;
  if (!isObj(b)) return undefined;
  const code = Number(b.status_code ?? 0);
  if (!Number.isFinite(code) || code === 0) return undefined;
  return { code, msg: typeof b.status_msg === 'string' && b.status_msg ? b.status_msg : `MiniMax error ${code}` };
}

/**
 * A MiniMax status code as the HTTP status and type the pipeline judges: 1004 / 2049 (key not
 * authorised) are 401 and 1008 (no balance) `insufficient_quota`, both switching the channel off;
 * 1002 / 1039 / 1041 (rate, token and connection limits) are 429 and retried; 1026 / 1027
 * (sensitive input / output) and 2013 (bad parameters) are the caller's 400; the rest (1000
 * unknown, 1001 timeout, 1024 internal, 1033 system) a retryable 500.
 */
export function minimaxError(code: number, msg: string): WireError {
  const of = (status: number, type: string): WireError => ({ status, type, code: String(code), param: null, message: msg });
  switch (code) {
    case 1004:
    case 2049:
      return of(401, 'authentication_error');
    case 1008:
      return of(402, 'insufficient_quota');
    case 1002:
    case 1039:
    case 1041:
      return of(429, 'rate_limit_error');
    case 1026:
    case 1027:
    case 2013:
      return of(400, 'invalid_request_error');
    default:
      return of(500, 'upstream_error');
  }
}

export class MiniMaxAdapter extends CompatibleAdapter {
  override isErrorReply(call: UpstreamCall, json: Record<string, unknown>): boolean {
    return !!minimaxFailure(json) || super.isErrorReply(call, json);
  }

  override classifyError(status: number | undefined, upstreamStatus: number, body: string): UpstreamError {
    const json = parseObject(body);
    const failed = json && minimaxFailure(json);
    if (!failed) return super.classifyError(status, upstreamStatus, body);
    const err = minimaxError(failed.code, failed.msg);
    return { ...err, retryable: this.retryable(err.status), disablesChannel: credentialsDead(err) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const t = super.streamTransformer(call, cx);
    const inner = openAIReader();
    return {
      ...t,
      reader: {
        read(ev: UpstreamEvent): EventFacts {
          const facts = inner.read(ev);
          const failed = facts.json && minimaxFailure(facts.json);
          // A failure frame carries no choices: it bills nothing and reaches the caller as an error.
          if (failed) return { json: facts.json, text: '', toolCalls: 0, error: minimaxError(failed.code, failed.msg) };
          return facts;
        },
      },
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Moonshot (25): a stream's usage sits inside the final choice (`choices[0].usage`); it is lifted
// to the top level, where the pipeline bills it and OpenAI SDKs read it.

export function liftChoiceUsage(ev: UpstreamEvent): UpstreamEvent {
  const json = ev.data.includes('"usage"') ? parseObject(ev.data) : undefined;
  if (!json || json.usage || !Array.isArray(json.choices)) return ev;
  const choice = json.choices.find((c) => isObj(c) && isObj(c.usage)) as Record<string, unknown> | undefined;
  if (!choice) return ev;
  const { usage, ...rest } = choice;
  json.choices = json.choices.map((c) => (c === choice ? rest : c));
  json.usage = usage;
  return { event: ev.event, data: JSON.stringify(json) };
}

export class MoonshotAdapter extends CompatibleAdapter {
  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    return rewriting(super.streamTransformer(call, cx), () => liftChoiceUsage);
  }
}

// ---------------------------------------------------------------------------------------------
// DeepSeek (43): reasoning models stream `reasoning_content`; the channel setting
// `thinking_to_content` folds it into `content` as `<think>\n…\n</think>\n` for clients that only
// read `content`. Cache hits (`prompt_cache_hit_tokens`) are read by readUsage.

export const THINK_OPEN = '<think>\n';
export const THINK_CLOSE = '\n</think>\n';

export function thinkingToContent(ch: { setting: Record<string, unknown> }): boolean {
  return ch.setting.thinking_to_content === true;
}

/** Stream deltas: reasoning becomes content, opened by `<think>` and closed before the first answer text. */
export function foldReasoning(): (ev: UpstreamEvent) => UpstreamEvent {
  let open = false;
  return (ev) => {
    const json = ev.data.includes('"choices"') ? parseObject(ev.data) : undefined;
    const choice = json && Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : undefined;
    const delta = choice && isObj(choice.delta) ? choice.delta : undefined;
    if (!json || !choice || !delta) return ev;
    const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : '';
    const content = typeof delta.content === 'string' ? delta.content : '';
    let text = '';
    if (reasoning) {
      text += (open ? '' : THINK_OPEN) + reasoning;
      open = true;
    }
    if (open && (content || choice.finish_reason)) {
      text += THINK_CLOSE;
      open = false;
    }
    text += content;
    if (!reasoning && text === content) {
      if (!('reasoning_content' in delta)) return ev;
      delete delta.reasoning_content;
      return { event: ev.event, data: JSON.stringify(json) };
    }
    delete delta.reasoning_content;
    delta.content = text;
    return { event: ev.event, data: JSON.stringify(json) };
  };
}

/** A non-stream reply's messages with their reasoning folded into the content. */
export function foldReasoningReply(json: Record<string, unknown>): Record<string, unknown> {
  const choices = Array.isArray(json.choices) ? json.choices : [];
  return {
    ...json,
    choices: choices.map((c) => {
      if (!isObj(c) || !isObj(c.message) || typeof c.message.reasoning_content !== 'string' || !c.message.reasoning_content) return c;
      const { reasoning_content: reasoning, ...message } = c.message;
      return { ...c, message: { ...message, content: `${THINK_OPEN}${String(reasoning)}${THINK_CLOSE}${typeof message.content === 'string' ? message.content : ''}` } };
    }),
  };
}

export class DeepSeekAdapter extends CompatibleAdapter {
  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    const reply = super.convertResponse(call, json, cx);
    if (!reply || call.mode !== 'chat' || call.inbound !== 'openai-chat' || !thinkingToContent(call.ch)) return reply;
    return { ...reply, body: foldReasoningReply(json), usage: reply.usage ?? readUsage(json.usage) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const t = super.streamTransformer(call, cx);
    return call.inbound === 'openai-chat' && thinkingToContent(call.ch) ? rewriting(t, foldReasoning) : t;
  }
}

// ---------------------------------------------------------------------------------------------
// FastGPT (22): with `detail: true` the stream names its events (`answer`, `fastAnswer`,
// `flowNodeStatus`, `flowResponses`, tool and variable events). Only the answer reaches the
// caller, as plain OpenAI chunks; an `error` event is an error.

const ANSWER_EVENTS = new Set(['answer', 'fastAnswer']);

export function fastgptAnswers(ev: UpstreamEvent): UpstreamEvent | undefined {
  if (ev.event === undefined || ev.event === 'message') return ev;
  if (ANSWER_EVENTS.has(ev.event)) return { event: undefined, data: ev.data };
  if (ev.event === 'error') {
    const json = parseObject(ev.data);
    const message = json && typeof json.message === 'string' ? json.message : ev.data || 'FastGPT reported an error in the stream';
    return { event: undefined, data: JSON.stringify({ error: { message, type: 'upstream_error', code: 'fastgpt_error' } }) };
  }
  return undefined;
}

export class FastGPTAdapter extends CompatibleAdapter {
  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    return rewriting(super.streamTransformer(call, cx), () => fastgptAnswers);
  }
}
