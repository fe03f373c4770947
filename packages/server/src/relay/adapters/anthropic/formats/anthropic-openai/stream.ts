import { anthropicErrorFrame } from '../anthropic-messages/errors.js';
import { MESSAGE_STOP } from '../anthropic-messages/stream.js';
import { isObj } from '../../../../formats/shared/wire.js';
import type { ConvertContext, StreamWriter } from '../../../../formats/types.js';
import { anthropicUsageObject, stopReason } from './response.js';

const frame = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/**
 * OpenAI chat chunks → Anthropic stream events (providers-international §1.6): blocks open
 * lazily — `reasoning_content` a thinking block, `content` a text block, each new tool call a
 * tool_use block with its argument fragments as `input_json_delta` — and a change of kind closes
 * the open block. `message_delta` (with the billed usage) and `message_stop` are written after
 * settlement; `[DONE]` is never forwarded.
 */
export function openAIToAnthropicStream(cx: ConvertContext): StreamWriter {
  let started = false;
  let open: { index: number; kind: 'text' | 'thinking' | 'tool'; tool?: number } | undefined;
  let nextIndex = 0;
  let finish: unknown = null;

  const start = (json: Record<string, unknown> | undefined): string => {
    if (started) return '';
    started = true;
    const message = {
      id: json && typeof json.id === 'string' ? json.id : `msg_${cx.requestId}`,
      type: 'message',
      role: 'assistant',
      model: json && typeof json.model === 'string' && json.model ? json.model : cx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return frame('message_start', { message });
  };
  const close = (): string => {
    if (!open) return '';
    const out = frame('content_block_stop', { index: open.index });
    open = undefined;
    return out;
  };
  const openBlock = (kind: 'text' | 'thinking' | 'tool', block: Record<string, unknown>, tool?: number): string => {
    const out = close();
    open = { index: nextIndex++, kind, tool };
    return out + frame('content_block_start', { index: open.index, content_block: block });
  };

  return {
    write(_ev, facts) {
      const json = facts.json;
      if (!json || facts.error) return '';
      let out = start(json);
      const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : undefined;
      if (!choice) return out;
      const d = isObj(choice.delta) ? choice.delta : {};
      if (typeof d.reasoning_content === 'string' && d.reasoning_content) {
        if (open?.kind !== 'thinking') out += openBlock('thinking', { type: 'thinking', thinking: '' });
        out += frame('content_block_delta', { index: open!.index, delta: { type: 'thinking_delta', thinking: d.reasoning_content } });
      }
      if (typeof d.content === 'string' && d.content) {
        if (open?.kind !== 'text') out += openBlock('text', { type: 'text', text: '' });
        out += frame('content_block_delta', { index: open!.index, delta: { type: 'text_delta', text: d.content } });
      }
      for (const raw of Array.isArray(d.tool_calls) ? d.tool_calls : []) {
        const tc = isObj(raw) ? raw : {};
        const fn = isObj(tc.function) ? tc.function : {};
        const k = typeof tc.index === 'number' ? tc.index : 0;
        if (open?.kind !== 'tool' || open.tool !== k) out += openBlock('tool', { type: 'tool_use', id: tc.id ?? `toolu_${cx.requestId}_${k}`, name: fn.name ?? '', input: {} }, k);
        if (typeof fn.arguments === 'string' && fn.arguments) {
          out += frame('content_block_delta', { index: open!.index, delta: { type: 'input_json_delta', partial_json: fn.arguments } });
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
      return out;
    },
    end(e) {
      const delta = { stop_reason: stopReason(finish), stop_sequence: null };
      return start(undefined) + close() + frame('message_delta', { delta, usage: anthropicUsageObject(e.usage) }) + MESSAGE_STOP;
    },
    fail: anthropicErrorFrame,
  };
}
