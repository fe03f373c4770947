import { openAIErrorFrame, openAIStreamEnd, type ChunkMeta } from '../../../../formats/openai-chat/stream.js';
import { isObj } from '../../../../formats/shared/wire.js';
import type { ConvertContext, StreamWriter } from '../../../../formats/types.js';
import { cohereFinish } from './response.js';

/**
 * Cohere v2 stream events → OpenAI chat chunks, one event at a time: `message-start` opens the
 * assistant turn, `content-delta` text (thinking as `reasoning_content`), `tool-call-start` /
 * `tool-call-delta` as tool-call deltas indexed by the event's `index`, `message-end` the finish
 * reason. The usage chunk (when asked) and `[DONE]` are written after settlement.
 */
export function cohereToOpenAIStream(cx: ConvertContext): StreamWriter {
  const meta: ChunkMeta = { id: '', model: cx.model, created: Math.floor(Date.now() / 1000) };
  const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
    `data: ${JSON.stringify({ id: meta.id || `chatcmpl-${cx.requestId}`, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  // Cohere numbers tool calls by their position among all content; OpenAI callers want 0, 1, …
  const callIndex = new Map<number, number>();

  return {
    write(_ev, facts) {
      const json = facts.json;
      if (!json || facts.error) return '';
      const delta = isObj(json.delta) ? json.delta : {};
      const message = isObj(delta.message) ? delta.message : {};
      switch (json.type) {
        case 'message-start':
          if (typeof json.id === 'string') meta.id = `chatcmpl-${json.id}`;
          return chunk({ role: 'assistant', content: '' }, null);
        case 'content-delta': {
          const c = isObj(message.content) ? message.content : {};
          if (typeof c.thinking === 'string') return chunk({ reasoning_content: c.thinking }, null);
          return typeof c.text === 'string' && c.text ? chunk({ content: c.text }, null) : '';
        }
        case 'tool-call-start':
        case 'tool-call-delta': {
          const call = isObj(message.tool_calls) ? message.tool_calls : {};
          const fn = isObj(call.function) ? call.function : {};
          const at = typeof json.index === 'number' ? json.index : 0;
          if (!callIndex.has(at)) callIndex.set(at, callIndex.size);
          const index = callIndex.get(at)!;
          if (json.type === 'tool-call-start') {
            return chunk({ tool_calls: [{ index, id: String(call.id ?? ''), type: 'function', function: { name: String(fn.name ?? ''), arguments: typeof fn.arguments === 'string' ? fn.arguments : '' } }] }, null);
          }
          return typeof fn.arguments === 'string' ? chunk({ tool_calls: [{ index, function: { arguments: fn.arguments } }] }, null) : '';
        }
        case 'message-end':
          return chunk({}, cohereFinish(delta.finish_reason) ?? 'stop');
        default:
          return '';
      }
    },
    end: (e) => openAIStreamEnd('chat.completion.chunk', meta, cx, e, true),
    fail: openAIErrorFrame,
  };
}
