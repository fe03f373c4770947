import type { ConvertContext, FormatConverter, FormatSpec, StreamWriter, TextFormat, UpstreamEvent } from './types.js';

/** The events of SSE text a converter wrote (always `event:` / `data:` lines, blank-line separated). */
export function framesToEvents(text: string): UpstreamEvent[] {
  const out: UpstreamEvent[] = [];
  // SSE allows CRLF, CR or LF line ends and "data:" with or without its space (HTML's event-stream rules).
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    if (!block) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const field = line.slice(0, colon);
      const value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) out.push({ event, data: data.join('\n') });
  }
  return out;
}

/**
 * `first` (caller X → OpenAI chat) after `second` (OpenAI chat → upstream Z): a caller X served
 * by an upstream Z with no converter of its own. Requests go X → chat → Z, replies Z → chat → X;
 * a stream's upstream events become chat chunks (second's writer) that are read back as chat
 * events and written in X (first's writer), one event at a time, so nothing is buffered.
 */
export function composeThroughChat(first: FormatConverter, second: FormatConverter, chat: FormatSpec): FormatConverter {
  return {
    from: first.from,
    to: second.to as TextFormat,
    request: (body, cx) => second.request(first.request(body, cx), cx),
    response: (json, cx) => first.response(second.response(json, cx), cx),
    stream(cx: ConvertContext): StreamWriter {
      // The intermediate chat stream needs no usage chunk: the outer writer gets the billed usage itself.
      const inner = second.stream({ ...cx, clientWantsUsage: false, jsonArray: false });
      const outer = first.stream(cx);
      const reader = chat.reader();
      const relay = (frames: string): string => {
        let out = '';
        for (const ev of framesToEvents(frames)) out += outer.write(ev, reader.read(ev));
        return out;
      };
      return {
        contentType: outer.contentType,
        write: (ev, facts) => relay(inner.write(ev, facts)),
        end: (e) => relay(inner.end(e)) + outer.end(e),
        fail: (err) => outer.fail(err),
      };
    },
  };
}
