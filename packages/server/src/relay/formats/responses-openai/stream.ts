import { isObj } from '../shared/wire.js';
import { responsesErrorFrame, responsesFrame } from '../openai-responses/stream.js';
import type { ConvertContext, StreamWriter } from '../types.js';
import { itemId, responseObject, responsesUsage, statusOf } from './response.js';
import { customInput, toolTable } from './tools.js';

type Item = Record<string, unknown>;
interface Open {
  kind: 'reasoning' | 'message' | 'function_call' | 'custom_tool_call';
  index: number;
  item: Item;
  text: string;
  /** OpenAI tool-call index of an open function_call item. */
  tool?: number;
}

/**
 * OpenAI chat chunks → the Responses event sequence (providers-international §9): response.created
 * and response.in_progress, then per output item output_item.added → its part / deltas → .done
 * events → output_item.done (reasoning as a summary, text as output_text, each tool call as a
 * function_call item with argument deltas, or, for a custom tool, a custom_tool_call item whose
 * input is told once the call is complete: the chat arguments are the JSON `{"input": …}`, read
 * whole). `response.completed` (or `.incomplete`), carrying the
 * full output and the billed usage, is written after settlement. Sequence numbers start at 0.
 */
export function openAIToResponsesStream(cx: ConvertContext): StreamWriter {
  let seq = 0;
  let response: Item | undefined;
  const output: Item[] = [];
  let open: Open | undefined;
  let finish: unknown = null;
  let counter = 0;
  const table = toolTable(cx.callerBody ?? {});
  const ev = (type: string, data: Item) => responsesFrame(type, { sequence_number: seq++, ...data });

  const start = (json: Item | undefined): string => {
    if (response) return '';
    const id = json && typeof json.id === 'string' ? `resp_${json.id.replace(/[^A-Za-z0-9]/g, '')}` : itemId('resp', cx, 0);
    const created = json && typeof json.created === 'number' ? json.created : Math.floor(Date.now() / 1000);
    response = responseObject(cx, id, json && typeof json.model === 'string' ? json.model : '', created);
    return ev('response.created', { response }) + ev('response.in_progress', { response });
  };
  const close = (): string => {
    if (!open) return '';
    const { kind, index, item, text } = open;
    const at = { item_id: item.id, output_index: index };
    let out = '';
    if (kind === 'reasoning') {
      const part = { type: 'summary_text', text };
      out += ev('response.reasoning_summary_text.done', { ...at, summary_index: 0, text }) + ev('response.reasoning_summary_part.done', { ...at, summary_index: 0, part });
      item.summary = [part];
    } else if (kind === 'message') {
      const part = { type: 'output_text', text, annotations: [], logprobs: [] };
      out += ev('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }) + ev('response.content_part.done', { ...at, content_index: 0, part });
      item.content = [part];
      item.status = 'completed';
    } else if (kind === 'custom_tool_call') {
      const input = customInput(text);
      item.input = input;
      item.status = 'completed';
      if (input) out += ev('response.custom_tool_call_input.delta', { ...at, delta: input });
      out += ev('response.custom_tool_call_input.done', { ...at, input });
    } else {
      item.arguments = text;
      item.status = 'completed';
      out += ev('response.function_call_arguments.done', { ...at, name: item.name, arguments: text });
    }
    open = undefined;
    return out + ev('response.output_item.done', { output_index: index, item });
  };
  const openItem = (kind: Open['kind'], item: Item, tool?: number): string => {
    let out = close();
    open = { kind, index: output.length, item, text: '', tool };
    output.push(item);
    out += ev('response.output_item.added', { output_index: open.index, item: { ...item } });
    const at = { item_id: item.id, output_index: open.index };
    if (kind === 'reasoning') out += ev('response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } });
    if (kind === 'message') out += ev('response.content_part.added', { ...at, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    return out;
  };

  /** Opens the item of a new tool call: its kind and name as the caller declared the tool. */
  const openCall = (raw: Item, fn: Item, k: number): string => {
    const entry = table.byChatName.get(String(fn.name ?? ''));
    const callId = raw.id ?? itemId('call', cx, k);
    const ns = entry?.namespace ? { namespace: entry.namespace } : {};
    if (entry?.kind === 'custom') {
      return openItem('custom_tool_call', { type: 'custom_tool_call', id: itemId('ctc', cx, counter++), call_id: callId, ...ns, name: entry.name, input: '', status: 'in_progress' }, k);
    }
    return openItem('function_call', { type: 'function_call', id: itemId('fc', cx, counter++), call_id: callId, ...ns, name: entry?.name ?? fn.name ?? '', arguments: '', status: 'in_progress' }, k);
  };

  return {
    write(_e, facts) {
      const json = facts.json;
      if (!json || facts.error) return '';
      let out = start(json);
      const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : undefined;
      if (!choice) return out;
      const d = isObj(choice.delta) ? choice.delta : {};
      if (typeof d.reasoning_content === 'string' && d.reasoning_content) {
        if (open?.kind !== 'reasoning') out += openItem('reasoning', { type: 'reasoning', id: itemId('rs', cx, counter++), summary: [] });
        open!.text += d.reasoning_content;
        out += ev('response.reasoning_summary_text.delta', { item_id: open!.item.id, output_index: open!.index, summary_index: 0, delta: d.reasoning_content });
      }
      if (typeof d.content === 'string' && d.content) {
        if (open?.kind !== 'message') out += openItem('message', { type: 'message', id: itemId('msg', cx, counter++), status: 'in_progress', role: 'assistant', content: [] });
        open!.text += d.content;
        out += ev('response.output_text.delta', { item_id: open!.item.id, output_index: open!.index, content_index: 0, delta: d.content, logprobs: [] });
      }
      for (const raw of Array.isArray(d.tool_calls) ? d.tool_calls.filter(isObj) : []) {
        const k = typeof raw.index === 'number' ? raw.index : 0;
        const fn = isObj(raw.function) ? raw.function : {};
        if ((open?.kind !== 'function_call' && open?.kind !== 'custom_tool_call') || open.tool !== k) out += openCall(raw, fn, k);
        if (typeof fn.arguments === 'string' && fn.arguments) {
          open!.text += fn.arguments;
          if (open!.kind === 'function_call') out += ev('response.function_call_arguments.delta', { item_id: open!.item.id, output_index: open!.index, delta: fn.arguments });
        }
      }
      if (choice.finish_reason) {
        finish = choice.finish_reason;
        out += close();
      }
      return out;
    },
    end(e) {
      let out = start(undefined) + close();
      const { status, incomplete_details } = statusOf(finish);
      const final = { ...response!, status, incomplete_details, output, usage: responsesUsage(e.usage) };
      out += ev(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final });
      return out;
    },
    fail: (err) => responsesErrorFrame(err, seq++),
  };
}
