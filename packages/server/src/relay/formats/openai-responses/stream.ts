import { readUsage } from '../../billing/pricing.js';
import { isObj, parseObject } from '../shared/wire.js';
import type { ConvertContext, EventFacts, StreamReader, StreamWriter, WireError } from '../types.js';

/** Events that end a Responses stream with the full response and its usage. */
export const TERMINAL = new Set(['response.completed', 'response.incomplete']);
const TEXT_DELTAS = new Set([
  'response.output_text.delta', 'response.refusal.delta', 'response.function_call_arguments.delta', 'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
]);

function responseError(e: unknown, status: number): WireError {
  const err = isObj(e) ? e : {};
  return {
    status,
    type: typeof err.type === 'string' && err.type ? err.type : 'upstream_error',
    code: typeof err.code === 'string' ? err.code : null,
    param: typeof err.param === 'string' ? err.param : null,
    message: typeof err.message === 'string' && err.message ? err.message : 'the upstream reported an error in the stream',
  };
}

/**
 * Reads Responses stream events (providers-international §9): the text of output-text, refusal,
 * reasoning-summary and function-argument deltas, a tool call per function_call item, the usage of
 * the terminal `response.completed` / `response.incomplete`, and `error` / `response.failed`.
 */
export function responsesReader(): StreamReader {
  return {
    read(ev): EventFacts {
      const json = parseObject(ev.data);
      const facts: EventFacts = { json, text: '', toolCalls: 0 };
      if (!json) return facts;
      const type = typeof json.type === 'string' ? json.type : ev.event;
      if (type && TEXT_DELTAS.has(type) && typeof json.delta === 'string') facts.text = json.delta;
      else if (type === 'response.output_item.added' && isObj(json.item) && json.item.type === 'function_call') {
        facts.toolCalls = 1;
        facts.text = typeof json.item.name === 'string' ? json.item.name : '';
      } else if (type && TERMINAL.has(type) && isObj(json.response)) {
        const u = readUsage(json.response.usage);
        if (u) {
          facts.usage = u;
          facts.usageFinal = true;
        }
      } else if (type === 'response.failed') facts.error = responseError(isObj(json.response) ? json.response.error : undefined, 500);
      else if (type === 'error') facts.error = responseError(json, 500);
      return facts;
    },
  };
}

export function responsesFrame(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The `error` event that ends a Responses stream ModelGate had to cut. */
export function responsesErrorFrame(err: WireError, sequence: number): string {
  return responsesFrame('error', { code: err.code ?? err.type, message: err.message, param: err.param, sequence_number: sequence });
}

/**
 * Responses upstream, Responses caller: events pass as they came; the terminal
 * `response.completed` (which carries the usage) is held until the bill is settled.
 */
export function responsesPassthrough(_cx: ConvertContext): StreamWriter {
  let held = '';
  let sequence = 0;
  return {
    write(ev, facts) {
      const json = facts.json;
      if (!json || facts.error) return '';
      if (typeof json.sequence_number === 'number') sequence = json.sequence_number + 1;
      const type = typeof json.type === 'string' ? json.type : ev.event;
      const frame = `event: ${ev.event ?? type ?? 'message'}\ndata: ${ev.data}\n\n`;
      if (type && TERMINAL.has(type)) {
        held = frame;
        return '';
      }
      return frame;
    },
    end: () => held,
    fail: (err) => responsesErrorFrame(err, sequence),
  };
}
