import { isObj } from '../../../../formats/shared/wire.js';
import { geminiFinish } from '../gemini/finish.js';
import { geminiFramer } from '../gemini/stream.js';
import { usageMetadata } from '../gemini/usage.js';
import type { ConvertContext, StreamWriter } from '../../../../formats/types.js';
import { partsOfMessage } from './response.js';

interface Call {
  id: unknown;
  name: string;
  arguments: string;
}

/**
 * OpenAI chat chunks → Gemini stream chunks: text and reasoning go out as they come; a function
 * call arrives whole in Gemini, so its argument fragments are gathered and the calls go out in the
 * last chunk — with `finishReason` and the billed `usageMetadata` — written after settlement.
 */
export function openAIToGeminiStream(cx: ConvertContext): StreamWriter {
  const f = geminiFramer(cx);
  let responseId = '';
  let model = '';
  const calls = new Map<number, Call>();
  let finish: unknown = null;
  const chunk = (parts: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}, top: Record<string, unknown> = {}): string =>
    f.frame(
      JSON.stringify({
        candidates: [{ content: { role: 'model', parts }, ...extra, index: 0 }],
        ...top,
        modelVersion: model || cx.model,
        responseId: responseId || cx.requestId,
      }),
    );
  const callParts = (): Array<Record<string, unknown>> => {
    const list = [...calls.values()].map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    calls.clear();
    return partsOfMessage({ tool_calls: list });
  };

  return {
    contentType: f.contentType,
    write(_ev, facts) {
      const json = facts.json;
      if (!json || facts.error) return '';
      if (!responseId && typeof json.id === 'string') responseId = json.id;
      if (!model && typeof json.model === 'string') model = json.model;
      const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : undefined;
      if (!choice) return '';
      const d = isObj(choice.delta) ? choice.delta : {};
      let out = '';
      const parts = partsOfMessage({ reasoning_content: d.reasoning_content, content: d.content });
      if (parts.length) out += chunk(parts);
      for (const raw of Array.isArray(d.tool_calls) ? d.tool_calls.filter(isObj) : []) {
        const k = typeof raw.index === 'number' ? raw.index : 0;
        const fn = isObj(raw.function) ? raw.function : {};
        const c = calls.get(k) ?? { id: raw.id, name: '', arguments: '' };
        if (raw.id) c.id = raw.id;
        if (typeof fn.name === 'string') c.name += fn.name;
        if (typeof fn.arguments === 'string') c.arguments += fn.arguments;
        calls.set(k, c);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
      return out;
    },
    end(e) {
      // As Gemini sends them: function calls whole, in the last chunk with the finish reason and usage.
      const parts = calls.size ? callParts() : [{ text: '' }];
      return chunk(parts, { finishReason: geminiFinish(finish) }, { usageMetadata: usageMetadata(e.usage) }) + f.end();
    },
    fail: (err) => f.fail(err),
  };
}
