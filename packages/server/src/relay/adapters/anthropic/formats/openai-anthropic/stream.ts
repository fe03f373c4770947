import { isObj } from '../../../../formats/shared/wire.js';
import { openAIErrorFrame, openAIStreamEnd, type ChunkMeta } from '../../../../formats/openai-chat/stream.js';
import type { ConvertContext, StreamWriter } from '../../../../formats/types.js';
import { finishReason } from './response.js';

/**
 * Anthropic stream events → OpenAI chat chunks, one event at a time (providers-international
 * §1.5): text and thinking deltas become `content` / `reasoning_content`; each `tool_use` block
 * becomes a tool call whose index counts tool calls, not Claude's block indexes; `message_delta`
 * gives the finish reason. The usage chunk (when asked) and `[DONE]` are written after settlement.
 */
export function anthropicToOpenAIStream(cx: ConvertContext): StreamWriter {
  const meta: ChunkMeta = { id: '', model: '', created: Math.floor(Date.now() / 1000) };
  /** Claude block index → OpenAI tool call index. */
  const toolIndex = new Map<number, number>();
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({
      id: meta.id || `chatcmpl-${cx.requestId}`,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model || cx.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;

  return {
    write(_ev, facts) {
      const json = facts.json;
      if (!json || facts.error) return '';
      switch (json.type) {
        case 'message_start': {
          const m = isObj(json.message) ? json.message : {};
          if (typeof m.id === 'string') meta.id = m.id;
          if (typeof m.model === 'string') meta.model = m.model;
          return chunk({ role: 'assistant', content: '' });
        }
        case 'content_block_start': {
          const b = isObj(json.content_block) ? json.content_block : {};
          if (b.type === 'tool_use') {
            const k = toolIndex.size;
            toolIndex.set(Number(json.index), k);
            return chunk({ tool_calls: [{ index: k, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }] });
          }
          if (b.type === 'text' && typeof b.text === 'string' && b.text) return chunk({ content: b.text });
          return '';
        }
        case 'content_block_delta': {
          const d = isObj(json.delta) ? json.delta : {};
          if (d.type === 'text_delta' && typeof d.text === 'string') return chunk({ content: d.text });
          if (d.type === 'thinking_delta' && typeof d.thinking === 'string') return chunk({ reasoning_content: d.thinking });
          if (d.type === 'input_json_delta' && typeof d.partial_json === 'string' && d.partial_json) {
            const k = toolIndex.get(Number(json.index));
            return k === undefined ? '' : chunk({ tool_calls: [{ index: k, function: { arguments: d.partial_json } }] });
          }
          return '';
        }
        case 'message_delta': {
          const d = isObj(json.delta) ? json.delta : {};
          return d.stop_reason ? chunk({}, finishReason(d.stop_reason)) : '';
        }
        default:
          // ping, content_block_stop, signature and citation deltas have no OpenAI counterpart;
          // message_stop ends the stream after settlement.
          return '';
      }
    },
    // The upstream's usage never reaches an OpenAI caller as a chunk: one is always written when asked.
    end: (e) => openAIStreamEnd('chat.completion.chunk', meta, cx, e, true),
    fail: openAIErrorFrame,
  };
}
