import { openAIErrorFrame, openAIStreamEnd, type ChunkMeta } from '../../../../formats/openai-chat/stream.js';
import { isObj } from '../../../../formats/shared/wire.js';
import { openAIFinish } from '../gemini/finish.js';
import { candidates, partsOf } from '../gemini/stream.js';
import type { ConvertContext, StreamWriter } from '../../../../formats/types.js';
import { callId, readParts } from './response.js';

/**
 * Gemini stream chunks → OpenAI chat chunks, one chunk at a time (providers-international §2.5):
 * text as `content`, thoughts as `reasoning_content`, each function call whole as one tool-call
 * delta indexed by its ordinal, the finish reason on the candidate's last chunk. The usage chunk
 * (when asked) and `[DONE]` are written after settlement.
 */
export function geminiToOpenAIStream(cx: ConvertContext): StreamWriter {
  const meta: ChunkMeta = { id: '', model: '', created: Math.floor(Date.now() / 1000) };
  const started = new Set<number>();
  const calls = new Map<number, number>();
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null): string =>
    `data: ${JSON.stringify({
      id: meta.id || `chatcmpl-${cx.requestId}`,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model || cx.model,
      choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;

  return {
    write(_ev, facts) {
      const json = facts.json;
      if (!json || facts.error) return '';
      if (!meta.id && typeof json.responseId === 'string') meta.id = `chatcmpl-${json.responseId}`;
      if (!meta.model && typeof json.modelVersion === 'string') meta.model = json.modelVersion;
      let out = '';
      const list = candidates(json);
      list.forEach((c, i) => {
        const index = typeof c.index === 'number' ? c.index : i;
        const r = readParts(partsOf(c));
        const delta: Record<string, unknown> = {};
        if (!started.has(index)) {
          started.add(index);
          delta.role = 'assistant';
          delta.content = '';
        }
        if (r.content) delta.content = r.content;
        if (r.reasoning) delta.reasoning_content = r.reasoning;
        if (r.calls.length) {
          const first = calls.get(index) ?? 0;
          calls.set(index, first + r.calls.length);
          delta.tool_calls = r.calls.map((fn, k) => ({ index: first + k, id: callId(cx, index, first + k), type: 'function', function: fn }));
        }
        const finish = openAIFinish(c.finishReason ?? c.finish_reason, (calls.get(index) ?? 0) > 0);
        if (Object.keys(delta).length || finish) out += chunk(index, delta, finish);
      });
      if (list.length === 0 && isObj(json.promptFeedback) && json.promptFeedback.blockReason) out += chunk(0, { role: 'assistant', content: '' }, 'content_filter');
      return out;
    },
    // Gemini's usage never reaches an OpenAI caller as a chunk: one is always written when asked.
    end: (e) => openAIStreamEnd('chat.completion.chunk', meta, cx, e, true),
    fail: openAIErrorFrame,
  };
}
