import { describe, expect, it } from 'vitest';
import { framesToEvents } from './compose.js';

describe('framesToEvents: written SSE frames read back as events', () => {
  it('reads LF, CRLF and CR line ends, with or without the space after the colon', () => {
    const expected = [
      { event: 'message_start', data: '{"a":1}' },
      { event: undefined, data: '[DONE]' },
    ];
    expect(framesToEvents('event: message_start\ndata: {"a":1}\n\ndata: [DONE]\n\n')).toEqual(expected);
    expect(framesToEvents('event: message_start\r\ndata: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n')).toEqual(expected);
    expect(framesToEvents('event:message_start\rdata:{"a":1}\r\rdata:[DONE]\r\r')).toEqual(expected);
  });

  it('joins the data lines of one event, skips comments and frames without data', () => {
    expect(framesToEvents(': keep-alive\n\nevent: ping\n\ndata: line one\ndata: line two\nid: 7\n\n')).toEqual([{ event: undefined, data: 'line one\nline two' }]);
  });
});
