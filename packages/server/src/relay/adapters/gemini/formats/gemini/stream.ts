import { isObj, parseObject } from '../../../../formats/shared/wire.js';
import type { ConvertContext, EventFacts, StreamReader, StreamWriter, WireError } from '../../../../formats/types.js';
import { geminiErrorBody, parseGeminiError } from './errors.js';
import { geminiUsage, usageField } from './usage.js';

/** The candidates of a GenerateContentResponse (`candidates[].content.parts`). */
export function candidates(json: Record<string, unknown>): Array<Record<string, unknown>> {
  return Array.isArray(json.candidates) ? json.candidates.filter(isObj) : [];
}

export function partsOf(candidate: Record<string, unknown>): Array<Record<string, unknown>> {
  const content = isObj(candidate.content) ? candidate.content : {};
  return Array.isArray(content.parts) ? content.parts.filter(isObj) : [];
}

/** Billable text of a part: text and thoughts, function calls (name and arguments), code and its output. */
export function partText(p: Record<string, unknown>): string {
  if (typeof p.text === 'string') return p.text;
  const call = p.functionCall ?? p.function_call;
  if (isObj(call)) return `${typeof call.name === 'string' ? call.name : ''}${JSON.stringify(call.args ?? {})}`;
  const code = p.executableCode ?? p.executable_code;
  if (isObj(code) && typeof code.code === 'string') return code.code;
  const result = p.codeExecutionResult ?? p.code_execution_result;
  if (isObj(result) && typeof result.output === 'string') return result.output;
  return '';
}

export function isFunctionCall(p: Record<string, unknown>): boolean {
  return isObj(p.functionCall ?? p.function_call);
}

/** Completion text of a GenerateContentResponse, for local counting. */
export function geminiResponseText(json: Record<string, unknown>): string {
  let text = '';
  for (const c of candidates(json)) for (const p of partsOf(c)) text += partText(p);
  return text;
}

/**
 * Reads Gemini stream chunks (`alt=sse`; providers-international §2.3): each is a whole
 * GenerateContentResponse with new parts and the running `usageMetadata`. The usage is final once
 * a candidate has finished; before that it is provisional (its prompt count still bills a stream
 * that breaks). A `{"error":…}` chunk is the upstream failing mid-stream.
 */
export function geminiReader(): StreamReader {
  let finished = false;
  return {
    read(ev): EventFacts {
      const json = parseObject(ev.data);
      const facts: EventFacts = { json, text: '', toolCalls: 0 };
      if (!json) return facts;
      if (isObj(json.error)) {
        facts.error = parseGeminiError(0, json) ?? { status: 500, type: 'INTERNAL', code: 'INTERNAL', param: null, message: 'the upstream reported an error in the stream' };
        return facts;
      }
      let text = '';
      for (const c of candidates(json)) {
        if (c.finishReason ?? c.finish_reason) finished = true;
        for (const p of partsOf(c)) {
          text += partText(p);
          if (isFunctionCall(p)) facts.toolCalls += 1;
        }
      }
      const promptBlocked = isObj(json.promptFeedback) && json.promptFeedback.blockReason;
      if (promptBlocked) finished = true;
      facts.text = text;
      const usage = geminiUsage(usageField(json));
      if (usage) {
        facts.usage = usage;
        facts.usageFinal = finished;
      }
      return facts;
    },
  };
}

/** Frames of a Gemini caller's stream: SSE (`alt=sse`, CRLF like Google) or one JSON array written element by element. */
export interface GeminiFramer {
  contentType: string | undefined;
  frame(json: string): string;
  end(): string;
  fail(err: WireError): string;
}

export function geminiFramer(cx: Pick<ConvertContext, 'jsonArray'>): GeminiFramer {
  if (!cx.jsonArray) {
    return {
      contentType: undefined,
      frame: (json) => `data: ${json}\r\n\r\n`,
      end: () => '',
      fail: (err) => `data: ${JSON.stringify(geminiErrorBody(err))}\r\n\r\n`,
    };
  }
  let open = false;
  const next = (json: string) => {
    const lead = open ? ',\r\n' : '[';
    open = true;
    return lead + json;
  };
  return {
    contentType: 'application/json',
    frame: next,
    end: () => (open ? ']' : '[]'),
    fail: (err) => `${next(JSON.stringify(geminiErrorBody(err)))}]`,
  };
}

/** Gemini upstream, Gemini caller: each chunk passes as it came (re-framed when the caller wants a JSON array). */
export function geminiPassthrough(cx: ConvertContext): StreamWriter {
  const f = geminiFramer(cx);
  return {
    contentType: f.contentType,
    write: (ev, facts) => (facts.json && !facts.error ? f.frame(ev.data) : ''),
    end: () => f.end(),
    fail: (err) => f.fail(err),
  };
}
