import { emptyUsage, type Usage } from '@modelgate/shared';
import { parseObject } from '../../../../formats/shared/wire.js';
import type { ConvertContext, EventFacts, StreamReader, StreamWriter } from '../../../../formats/types.js';
import { anthropicErrorFrame, parseAnthropicError, statusOfAnthropicType } from './errors.js';

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/**
 * Anthropic usage → normalised usage. `input_tokens` is only the uncached part of the prompt: the
 * prompt is input + cache read + cache creation (providers-international §1.2). `output_tokens`
 * includes the thinking, which `output_tokens_details.thinking_tokens` reports on its own.
 */
export function anthropicUsage(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const u = raw as Record<string, unknown>;
  const read = n(u.cache_read_input_tokens);
  const write = n(u.cache_creation_input_tokens);
  const prompt = n(u.input_tokens) + read + write;
  const completion = n(u.output_tokens);
  if (prompt + completion === 0) return undefined;
  const details = u.output_tokens_details && typeof u.output_tokens_details === 'object' ? (u.output_tokens_details as Record<string, unknown>) : {};
  const thinking = Math.min(n(details.thinking_tokens), completion);
  return { ...emptyUsage(), promptTokens: prompt, completionTokens: completion, cachedTokens: read, cacheWriteTokens: write, reasoningTokens: thinking };
}


/**
 * Reads Anthropic stream events (§1.3). The prompt side of the usage comes with `message_start`
 * (provisional: its output count is a placeholder); `message_delta` carries the cumulative output
 * count and, on newer versions, repeats the input and cache counts.
 */
export function anthropicReader(): StreamReader {
  const raw: Record<string, unknown> = {};
  return {
    read(ev) {
      const json = parseObject(ev.data);
      const facts: EventFacts = { json, text: '', toolCalls: 0 };
      if (!json) return facts;
      switch (json.type) {
        case 'message_start': {
          const m = json.message as { usage?: Record<string, unknown> } | undefined;
          Object.assign(raw, m?.usage ?? {});
          facts.usage = anthropicUsage(raw);
          break;
        }
        case 'content_block_start': {
          const b = (json.content_block ?? {}) as Record<string, unknown>;
          if (b.type === 'tool_use') {
            facts.toolCalls = 1;
            if (typeof b.name === 'string') facts.text = b.name;
          } else if (typeof b.text === 'string') facts.text = b.text;
          else if (typeof b.thinking === 'string') facts.text = b.thinking;
          break;
        }
        case 'content_block_delta': {
          const d = (json.delta ?? {}) as Record<string, unknown>;
          if (typeof d.text === 'string') facts.text = d.text;
          else if (typeof d.thinking === 'string') facts.text = d.thinking;
          else if (typeof d.partial_json === 'string') facts.text = d.partial_json;
          break;
        }
        case 'message_delta': {
          const u = json.usage as Record<string, unknown> | undefined;
          if (u) {
            for (const [k, v] of Object.entries(u)) if (v !== null && v !== undefined) raw[k] = v;
            facts.usage = anthropicUsage(raw);
            facts.usageFinal = true;
          }
          break;
        }
        case 'error': {
          const e = parseAnthropicError(500, json);
          if (e) facts.error = { ...e, status: statusOfAnthropicType(e.type) };
          else facts.error = { status: 500, type: 'api_error', code: 'api_error', param: null, message: 'the upstream reported an error in the stream' };
          break;
        }
      }
      return facts;
    },
  };
}

export const MESSAGE_STOP = `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}\n\n`;

/** Anthropic upstream, Anthropic caller: events pass as they came; `message_stop` waits for the settled bill. */
export function anthropicPassthrough(_cx: ConvertContext): StreamWriter {
  return {
    write(ev, facts) {
      const type = facts.json?.type;
      if (type === 'message_stop' || facts.error) return '';
      const name = ev.event ?? (typeof type === 'string' ? type : undefined);
      return name ? `event: ${name}\ndata: ${ev.data}\n\n` : `data: ${ev.data}\n\n`;
    },
    end: () => MESSAGE_STOP,
    fail: anthropicErrorFrame,
  };
}

